// The API docs themselves, loaded on the first request for them (./openapi.ts, decision 310): OpenAPI 3.1 generated
// from the route schemas for /api/openapi.json, and Swagger UI at /docs (branded Cobro, with a "sign this request"
// helper in sandbox). Every operation carries examples (./openapi-examples.ts). @fastify/swagger learns the routes
// from the `onRoute` hook, so they are registered again, as the root app recorded them, in a Fastify instance of
// the docs' own that never listens: the root forwards the docs' requests to it.
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi, { type FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import compress from '@fastify/compress';
import type { Mode } from '../process/config.ts';
import { signRequestInterceptor } from './docs-sign-helper.ts';
import {
  docsAssetsVersion,
  docsCacheControl,
  docsIndexHtml,
  docsNamesJs,
  docsThemeCss,
} from './docs-page.ts';
import { sharedErrors } from './openapi-errors.ts';
import { errorExamples, exampleOf } from './openapi-examples.ts';
import { routerOptions } from './router-options.ts';

/** What the root app registered, as its `onRoute` hook and `onReady` saw it. */
export interface RecordedRoutes {
  readonly routes: readonly RouteOptions[];
  readonly sharedSchemas: readonly unknown[];
}

const signDescription = [
  "HMAC-SHA256 of the request, lower-case hex, keyed with the account's PRIVATE token (docs/authentication.md):",
  'the path URL-encoded as a whole (`/api/wallet` → `%2Fapi%2Fwallet`), `&`, then the top-level parameters (JSON body',
  'members, or query parameters) whose values are not objects or arrays, sorted by key, as `key=urlencoded(value)`',
  'joined with `&`. `cobro sign --token PRIVATE --path /api/x --body JSON` prints it.',
].join(' ');
const sandboxSignHelp =
  " In this sandbox's /docs, paste the PRIVATE token here: the page computes each request's Sign in your browser and never sends the token.";

const logoSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="40" viewBox="0 0 150 40"><rect width="40" height="40" rx="8" fill="#0b5cad"/><text x="20" y="28" font-family="system-ui,sans-serif" font-size="24" font-weight="700" fill="#fff" text-anchor="middle">C</text><text x="50" y="28" font-family="system-ui,sans-serif" font-size="24" font-weight="700" fill="#fff">Cobro</text></svg>';
const faviconSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b5cad"/><text x="16" y="23" font-family="system-ui,sans-serif" font-size="20" font-weight="700" fill="#fff" text-anchor="middle">C</text></svg>';

type Json = Record<string, any>;
const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Adds an example to each request body and response of the generated document, error bodies as Cobro writes them. */
function withExamples(doc: Json): Json {
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of methods) {
      const op = item[method] as Json | undefined;
      if (op === undefined) continue;
      for (const media of Object.values((op.requestBody?.content ?? {}) as Record<string, Json>)) {
        if (media.example === undefined && media.examples === undefined)
          media.example = exampleOf(media.schema);
      }
      for (const [code, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
        for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) {
          if (media.example !== undefined || media.examples !== undefined) continue;
          const errors = errorExamples[code];
          if (errors !== undefined)
            media.examples = Object.fromEntries(errors.map((e, i) => [`e${i + 1}`, e]));
          else media.example = exampleOf(media.schema);
        }
      }
      const security = (op.security as Json[] | undefined) ?? [];
      if (security.length > 0 && security.every((s) => 'sign' in s)) {
        op.description = [
          op.description,
          'Signed: send `Authorization: Bearer PUBLIC` and the `Sign` header (see the `sign` security scheme).',
        ]
          .filter(Boolean)
          .join('\n\n');
      } else if (security.some((s) => 'sign' in s)) {
        op.description = [
          op.description,
          '`Authorization: Bearer PUBLIC` alone; a `Sign` header, when sent, is checked.',
        ]
          .filter(Boolean)
          .join('\n\n');
      }
    }
  }
  return withSlashAliases(doc);
}

/**
 * The reference's trailing-slash spellings (§4.8 marketplace transaction, §8 consumption subscription), which its
 * clients call. The router answers them with the same handler (routerOptions' ignoreTrailingSlash), so the document
 * lists each as a copy of its operation, marked `x-cobro-alias-of` (decision 440).
 */
const slashAliases: ReadonlyArray<readonly [method: (typeof methods)[number], path: string]> = [
  ['post', '/api/transaction/'],
  ['post', '/api/suclient/'],
  ['post', '/api/suplan/'],
  ['post', '/api/sususcription/'],
  ['post', '/api/sutransaction/'],
  ['post', '/api/suscriptionsdeletecards/'],
];

function withSlashAliases(doc: Json): Json {
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  for (const [method, alias] of slashAliases) {
    const canonical = alias.slice(0, -1);
    const op = paths[canonical]?.[method] as Json | undefined;
    // Only a routed operation has an alias (test/platform/http/openapi-routes.test.ts checks they all are).
    if (op === undefined) continue;
    const item = (paths[alias] ??= {});
    item[method] = {
      ...op,
      'x-cobro-alias-of': `${method.toUpperCase()} ${canonical}`,
      description: [
        op.description,
        `The reference's spelling of \`${method.toUpperCase()} ${canonical}\`, with a trailing slash: the same operation.`,
      ]
        .filter(Boolean)
        .join('\n\n'),
    };
  }
  return doc;
}

// The checkout's sandbox badge (src/checkout/html.ts), drawn after the docs' top bar; Swagger UI renders the bar
// itself, so the badge is CSS content rather than markup.
const sandboxBadgeCss = `.swagger-ui .topbar .wrapper::after { content: "Sandbox \\00B7  pruebas, sin dinero real"; display: inline-block;
  margin-top: .5rem; padding: .2rem .6rem; border-radius: 999px; background: #fff4d6; color: #5c3d00; font: 600 .85rem system-ui, sans-serif; }`;

/** The docs app's decorator: the URLs it answers itself. */
const servedUrls = 'servedUrls';

/** The URLs the docs app answers itself (Swagger UI's), which the root must forward to it (tests). */
export function docsAppUrls(app: FastifyInstance): readonly string[] {
  return app.hasDecorator(servedUrls) ? app.getDecorator<readonly string[]>(servedUrls) : [];
}

/** Handlers never run (the docs app answers only the docs' own routes): only the schemas and config matter. */
const documentedOnly = async (): Promise<never> => {
  throw new Error('the docs app serves no API route');
};

/** The theme's stylesheets: contrast and phone layout always, the badge in sandbox. */
function themeCssFiles(mode: Mode): readonly string[] {
  return mode === 'sandbox' ? ['cobro.css', 'sandbox.css'] : ['cobro.css'];
}

/** Swagger UI under /docs: Cobro's logo and theme, our own page around it (./docs-page.ts), the sandbox's helper. */
function swaggerUiOptions(mode: Mode, versionOf: () => string): FastifySwaggerUiOptions {
  const title = mode === 'sandbox' ? '[Sandbox] Cobro API docs' : 'Cobro API docs';
  const css = [
    { filename: 'cobro.css', content: docsThemeCss },
    ...(mode === 'sandbox' ? [{ filename: 'sandbox.css', content: sandboxBadgeCss }] : []),
  ];
  return {
    routePrefix: '/docs',
    uiConfig: {
      docExpansion: 'list',
      // The schemas section draws every shared model at the end of the page, a few seconds of a phone's time.
      defaultModelsExpandDepth: -1,
      // Without deep links an operation's path is text, not a link inside the row's button (axe: nested-interactive).
      deepLinking: false,
      persistAuthorization: true,
      ...(mode === 'sandbox' ? { requestInterceptor: signRequestInterceptor } : {}),
    },
    logo: { type: 'image/svg+xml', content: Buffer.from(logoSvg), href: '/docs', target: '_self' },
    // Our own page around Swagger UI's (./docs-page.ts): a viewport for phones and versioned asset URLs.
    uiHooks: {
      onRequest: async (request, reply) => {
        if (request.routeOptions.url === '/docs' || request.routeOptions.url === '/docs/') {
          return reply
            .type('text/html; charset=utf-8')
            .send(docsIndexHtml(title, versionOf(), themeCssFiles(mode)));
        }
        return undefined;
      },
    },
    theme: {
      // The sandbox says so on every page it serves, these docs included (issue 16 point 8).
      title,
      css,
      js: [{ filename: 'names.js', content: docsNamesJs }],
      favicon: [
        {
          filename: 'favicon.svg',
          rel: 'icon',
          sizes: 'any',
          type: 'image/svg+xml',
          content: Buffer.from(faviconSvg),
        },
      ],
    },
  };
}

/** The OpenAPI document's header and security schemes, and each route's security by its `auth`. */
function swaggerOptions(publicBaseUrl: string, mode: Mode): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cobro payment API',
        version: '2.1.01',
        description:
          'Payku-compatible payment API. Routes tagged "Extensions" go beyond the seed document.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Public token' },
          sign: {
            type: 'apiKey',
            in: 'header',
            name: 'Sign',
            description: signDescription + (mode === 'sandbox' ? sandboxSignHelp : ''),
          },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const auth = route.config?.auth ?? (url.startsWith('/api') ? 'token' : 'none');
      const security =
        auth === 'none'
          ? []
          : auth === 'sign'
            ? [{ bearer: [], sign: [] }]
            : auth === 'sign-if-sent'
              ? [{ bearer: [] }, { bearer: [], sign: [] }]
              : [{ bearer: [] }];
      // The answers the conventions send on every /api operation (decision 700); a route's own schema for one wins.
      const response = url.startsWith('/api')
        ? {
            ...sharedErrors({ method: String(route.method), auth }),
            ...(schema?.response as object | undefined),
          }
        : schema?.response;
      return { schema: { ...schema, response, security } as typeof schema, url };
    },
    transformObject: (document) =>
      withExamples((document as { openapiObject: Json }).openapiObject),
  };
}

/** The docs app for `recorded`, ready to be injected into. Every schema is taken as written: nothing validates here. */
export async function buildDocsApp(
  recorded: RecordedRoutes,
  publicBaseUrl: string,
  mode: Mode,
): Promise<FastifyInstance> {
  const app = Fastify({ routerOptions });
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  for (const schema of recorded.sharedSchemas) app.addSchema(schema as never);
  const served: string[] = [];
  app.decorate(servedUrls, served);
  let ownRoutes = true;
  app.addHook('onRoute', (route) => {
    if (ownRoutes && route.method !== 'HEAD') served.push(route.url);
  });
  // Swagger UI's bundle is 1.4 MB of script: brotli or gzip brings it to a quarter, and a versioned URL lets the
  // browser keep it (./docs-page.ts). The page and the document are compressed too.
  await app.register(compress, { global: true, encodings: ['br', 'gzip'] });
  let version = '';
  app.addHook('onSend', async (request, reply) => {
    docsCacheControl(request, reply, version);
  });
  await app.register(swagger, swaggerOptions(publicBaseUrl, mode));
  await app.register(
    swaggerUi,
    swaggerUiOptions(mode, () => version),
  );
  await app.after();
  ownRoutes = false;
  // As the root registered them, in its order, so the document lists them as before. HEAD routes: Fastify adds them
  // again for each GET, and @fastify/swagger leaves them out either way.
  for (const route of recorded.routes) {
    if (route.method === 'HEAD') continue;
    app.route({
      method: route.method,
      url: route.url,
      schema: route.schema,
      config: route.config,
      handler: documentedOnly,
      ...(route.constraints !== undefined ? { constraints: route.constraints } : {}),
    });
  }
  await app.ready();
  version = await docsAssetsVersion(app, themeCssFiles(mode));
  return app;
}

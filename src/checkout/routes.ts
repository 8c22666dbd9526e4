// The hosted checkout (reference §0.1): the pages the payer's browser opens. Server-rendered, no JavaScript,
// forms post back to the page; form parsing is registered only inside this plugin. Each kind of page
// (page-kinds.ts) registers its own routes here and shares the headers and the error page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../platform/context.ts';
import { limits } from '../limits/index.ts';
import { databaseUnavailable } from '../platform/errors/errors.ts';
import { isDatabaseUnavailable } from '../platform/db/outage.ts';
import { faviconSvg, sendPage } from './html.ts';
import { errorPage, invalidLinkPage } from './pages.ts';
import { answerNotFound, wantsHtml } from '../platform/http/conventions.ts';
import { storableInput } from '../platform/http/input-guards.ts';
import { checkoutPages } from './checkout-pages.ts';

const badRequestMessage = 'La solicitud no es válida. Vuelve a abrir el enlace de pago.';

function securityHeaders(reply: FastifyReply): void {
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cache-control', 'no-store');
  reply.header('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=()');
}

/**
 * Text PostgreSQL cannot store (a NUL, a lone surrogate) in a link's path or query names no transaction, token,
 * session or mall: the page of a bad link before any handler looks it up, never the 500 of a database error
 * (decision 860). A form's fields are the pages' own to judge (a card field answers with the form's problems).
 */
function refuseUnstorableLinks(child: FastifyInstance): void {
  child.addHook('preValidation', async (request, reply) => {
    if (storableInput({ params: request.params, query: request.query, body: undefined })) return;
    return sendPage(reply, 404, invalidLinkPage());
  });
}

export async function checkoutRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(async (child) => {
    await child.register(formbody, { bodyLimit: limits.checkoutFormBytesMax });
    child.addHook('onRequest', async (_request, reply) => {
      securityHeaders(reply);
    });
    refuseUnstorableLinks(child);
    // Every checkout page in the sandbox says so (html.ts), so no payer mistakes a test payment for a real one.
    child.decorateReply('sandboxBadge', ctx.config.mode === 'sandbox');
    for (const url of ['/favicon.svg', '/favicon.ico']) {
      child.get(
        url,
        { config: { auth: 'none' }, schema: { hide: true } },
        async (_request, reply) =>
          reply
            .header('cache-control', 'public, max-age=86400')
            .type('image/svg+xml')
            .send(faviconSvg),
      );
    }
    child.setErrorHandler(
      async (error: { validation?: unknown; statusCode?: number }, request, reply) => {
        if (
          error.validation !== undefined ||
          (typeof error.statusCode === 'number' && error.statusCode < 500)
        ) {
          return sendPage(reply, 400, errorPage(badRequestMessage));
        }
        // The database away (decision 420): the payer is told to retry, with the API's Retry-After; nothing was charged.
        if (isDatabaseUnavailable(error)) {
          for (const [name, value] of Object.entries(databaseUnavailable().headers))
            reply.header(name, value);
          request.log.warn({ reason: (error as Error).message }, 'database unavailable');
          return sendPage(
            reply,
            503,
            errorPage(
              'El servicio no está disponible en este momento. No se realizó ningún cobro; intenta nuevamente en unos segundos.',
            ),
          );
        }
        request.log.error({ err: error }, 'checkout failed');
        return sendPage(
          reply,
          500,
          errorPage('Ocurrió un error inesperado. No se realizó ningún cobro; intenta nuevamente.'),
        );
      },
    );
    const router = child.withTypeProvider<TypeBoxTypeProvider>();
    for (const pages of checkoutPages) pages.register(router, ctx);
    // A browser opening a /gateway/ address no page answers (a link cut short, mistyped) gets the page of a bad
    // link, in Spanish, not the API's English JSON; an API client still gets the JSON (decision 810).
    await child.register(
      async (gateway) => {
        gateway.setNotFoundHandler(async (request, reply) =>
          (request.method === 'GET' || request.method === 'HEAD') && wantsHtml(request)
            ? sendPage(reply, 404, invalidLinkPage())
            : answerNotFound(app, request, reply),
        );
      },
      { prefix: '/gateway' },
    );
  });
}

/**
 * A /gateway/ address Fastify's router refused before any route (bad percent-encoding, a path id past its length):
 * a browser gets the page of a bad link, as for an unknown /gateway/ path (decision 810), and `true`; anything else
 * is left to the API's envelope (`false`). Decision 860.
 */
export function answerRefusedGatewayUrl(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
): boolean {
  const page = request.method === 'GET' || request.method === 'HEAD';
  if (!page || !request.url.startsWith('/gateway/') || !wantsHtml(request)) return false;
  securityHeaders(reply);
  sendPage(reply, 404, invalidLinkPage(), ctx.config.mode === 'sandbox');
  return true;
}

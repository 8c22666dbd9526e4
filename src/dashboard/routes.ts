// The merchant dashboard at /dashboard (docs/dashboard.md): server-rendered eta pages that work without
// JavaScript. Everything it needs is registered inside its own encapsulated plugin: the cookie, form and CSRF
// plugins, the template engine, its security headers, the session check and its HTML error and 404 pages. Its
// paths are not /api paths, so the root's token auth, input guards and idempotency hooks leave them alone; every
// form is a POST with a CSRF token, and a state change reuses the same service the API or CLI command runs.
import { limitSignInTriesAcrossProcesses } from './sign-in-tries.ts';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { AppContext } from '../platform/context.ts';
import { ApiError, databaseUnavailable } from '../platform/errors/errors.ts';
import { isDatabaseUnavailable } from '../platform/db/outage.ts';
import { storableInput } from '../platform/http/input-guards.ts';
import { dashboardLimits } from '../limits/index.ts';
import { renderMessage, securityHeaders } from './render.ts';
import { csrfUserInfo, sessionAccount, sessionCookie } from './session.ts';
import { roleAllows, type DashboardRole } from './users.ts';
import { registerUserPages } from './user-pages.ts';
import { registerKeyPages } from './key-pages.ts';
import { registerAuthPages } from './auth-pages.ts';
import { registerDisputePages } from './dispute-pages.ts';
import { registerTransactionPages } from './transaction-pages.ts';
import { registerWalletPages } from './wallet-pages.ts';
import { registerCallbackPages } from './callback-pages.ts';
import { registerSubscriptionPages } from './subscription-pages.ts';
import { registerSandboxPages } from './sandbox-pages.ts';
import { registerHomePage } from './home-pages.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A dashboard route that opens without a session (sign-in, the stylesheet). */
    dashboardPublic?: boolean;
    /** The least role that may use the route (decision 541); `viewer` when not said. */
    dashboardRole?: DashboardRole;
  }
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** Where a signed-out visitor goes: the sign-in page, which comes back here afterwards. */
function signInRedirect(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
  return reply.code(303).header('cache-control', 'no-store').redirect(`/dashboard/login${next}`);
}

/**
 * A form posted from a page that is not the dashboard's own (decision 1090): the browser says so in `Sec-Fetch-Site`
 * (`cross-site`, or `same-site` from a sibling subdomain) or in `Origin`. The CSRF token already refuses a page that
 * could not read one, but a sibling subdomain can plant its own `cobro_csrf` cookie and post that cookie's signed-out
 * token: with the sign-in form, the victim is signed in to the attacker's account. A client that sends neither
 * header (no current browser posts without `Origin`) is left to the token. The dashboard's origin is the public base
 * URL's, or the one the request was addressed to (a direct visit past the proxy).
 */
function fromAnotherOrigin(request: FastifyRequest, ownOrigin: string): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  if (origin === ownOrigin) return false;
  try {
    return origin !== new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return true;
  }
}

/**
 * PostgreSQL stores no NUL and JSONB no lone surrogate: such text in an id, a filter or a form is the client's
 * mistake, refused as the API's input guards refuse it (decision 740), before any page reads it. Sign-in and
 * invitation pages read their fields themselves (hashed, or an e-mail no user can have).
 */
function refuseUnstorableInput(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('preValidation', async (request, reply) => {
    if (request.routeOptions.config.dashboardPublic === true || storableInput(request)) return;
    return renderMessage(
      ctx,
      request,
      reply,
      400,
      'Solicitud no válida',
      'La dirección o el formulario traen caracteres que no podemos guardar. Vuelve atrás y revísalos.',
    );
  });
}

function handleErrors(app: FastifyInstance, ctx: AppContext): void {
  app.setNotFoundHandler(async (request, reply) =>
    renderMessage(
      ctx,
      request,
      reply,
      404,
      'No encontrado',
      'La página que buscas no existe o no pertenece a tu cuenta.',
    ),
  );
  app.setErrorHandler(async (error: { statusCode?: number; code?: string }, request, reply) => {
    // The root's rate limit answers with the API's error; here it is a page, with the same Retry-After.
    if (error instanceof ApiError && error.httpStatus === 429) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return renderMessage(
        ctx,
        request,
        reply,
        429,
        'Demasiadas solicitudes',
        'Hiciste muchas solicitudes en poco tiempo. Espera un minuto e inténtalo de nuevo.',
      );
    }
    if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET') {
      return renderMessage(
        ctx,
        request,
        reply,
        403,
        'Formulario vencido',
        'El formulario venció o no vino de esta página. Vuelve atrás, recarga la página e inténtalo de nuevo.',
      );
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return renderMessage(
        ctx,
        request,
        reply,
        error.statusCode === 413 ? 413 : 400,
        'Solicitud no válida',
        'No pudimos leer la solicitud. Vuelve atrás e inténtalo de nuevo.',
      );
    }
    // The database away (decision 420): a page that says so, with the API's Retry-After.
    if (isDatabaseUnavailable(error)) {
      for (const [name, value] of Object.entries(databaseUnavailable().headers))
        reply.header(name, value);
      request.log.warn({ reason: (error as Error).message }, 'database unavailable');
      return renderMessage(
        ctx,
        request,
        reply,
        503,
        'Servicio no disponible',
        'La base de datos no responde en este momento. Nada cambió; inténtalo de nuevo en unos segundos.',
      );
    }
    request.log.error({ err: error }, 'dashboard failed');
    return renderMessage(
      ctx,
      request,
      reply,
      500,
      'Error inesperado',
      'Ocurrió un error inesperado. Nada cambió; inténtalo de nuevo en un momento.',
    );
  });
}

/**
 * The gate in front of every dashboard page: security headers, a form from another origin refused (decision 1090),
 * then the session and the role the route asks for (decision 541), checked on the server whatever the pages show.
 */
function guardEveryRequest(app: FastifyInstance, ctx: AppContext): void {
  const ownOrigin = new URL(ctx.config.publicBaseUrl).origin;
  app.addHook('onRequest', async (request, reply) => {
    securityHeaders(reply);
    const config = request.routeOptions.config;
    if (request.is404) return;
    if (fromAnotherOrigin(request, ownOrigin))
      return renderMessage(
        ctx,
        request,
        reply,
        403,
        'Formulario de otro sitio',
        'Este formulario no vino de una página del panel, así que no hicimos nada. Ábrelo desde el panel e inténtalo de nuevo.',
      );
    if (config.dashboardPublic === true) return;
    const signed = request.cookies[sessionCookie];
    const unsigned = signed === undefined ? null : request.unsignCookie(signed);
    const account =
      unsigned?.valid === true && unsigned.value !== null
        ? await sessionAccount(ctx, unsigned.value)
        : null;
    if (account === null) return signInRedirect(request, reply);
    request.dashboardAccount = account;
    // Every action is checked here, on the server, whatever the pages show (decision 541).
    if (!roleAllows(account.role, config.dashboardRole ?? 'viewer'))
      return renderMessage(
        ctx,
        request,
        reply,
        403,
        'Sin permiso',
        'Tu rol en esta cuenta no permite esta acción. Pide a quien administra la cuenta que cambie tu rol.',
      );
  });
}

async function dashboard(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const secure = ctx.config.publicBaseUrl.startsWith('https:');
  await app.register(cookie, {
    secret: ctx.secrets.derive('dashboard-cookies'),
    hook: 'onRequest',
  });
  await app.register(formbody, { bodyLimit: dashboardLimits.formBytesMax });
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'cobro_csrf',
    cookieOpts: { path: '/dashboard', sameSite: 'strict', httpOnly: true, signed: true, secure },
    // Each token is bound to the session it was shown to (decision 925); render.ts passes the same userInfo.
    getUserInfo: (request) => csrfUserInfo(request.cookies),
    csrfOpts: { hmacKey: ctx.secrets.derive('dashboard-csrf') },
  });
  await app.register(view, {
    engine: { eta: new Eta({ autoEscape: true }) },
    root: path.join(here, 'views'),
    production: true,
  });
  // Pages are not API operations: keep them out of /api/openapi.json, as the checkout's are.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  app.decorateRequest('dashboardAccount', null);
  guardEveryRequest(app, ctx);
  refuseUnstorableInput(app, ctx);
  limitSignInTriesAcrossProcesses(app, ctx);
  handleErrors(app, ctx);

  const stylesheet = fs.readFileSync(path.join(here, 'assets', 'dashboard.css'), 'utf8');
  app.get('/assets/dashboard.css', { config: { dashboardPublic: true } }, async (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=300')
      .type('text/css; charset=utf-8')
      .send(stylesheet),
  );
  registerHomePage(app, ctx);
  registerAuthPages(app, ctx, secure);
  registerTransactionPages(app, ctx);
  registerWalletPages(app, ctx);
  registerSubscriptionPages(app, ctx);
  registerCallbackPages(app, ctx);
  registerDisputePages(app, ctx);
  registerSandboxPages(app, ctx);
  registerUserPages(app, ctx, secure);
  registerKeyPages(app, ctx);
}

export async function dashboardRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(
    async (child) => {
      await dashboard(child, ctx);
    },
    { prefix: '/dashboard' },
  );
}

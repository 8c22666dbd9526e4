// GET /: a browser gets a small page, an API client JSON (issue 32: it was a JSON 404). In sandbox the page links
// the dashboard, the API docs and the README's first signed call; in production it says the service's name and
// status only, so the address tells an outsider nothing about the deployment.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { html, raw, type Html } from '../../checkout/html.ts';
import { wantsHtml } from '../../platform/http/conventions.ts';

const style =
  'body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#1d2430;line-height:1.5}' +
  'h1{color:#0b6e4f}a{color:#0b5cad}pre{background:#f3f5f8;padding:12px;border-radius:8px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem}' +
  '.badge{padding:2px 8px;border-radius:999px;background:#fff3cd;color:#6b4500;font-size:.8rem;font-weight:700}';

function sandboxBody(base: string): Html {
  return html`<h1>Cobro <span class="badge">Sandbox</span></h1><p>El servicio está funcionando en modo sandbox: pagos de prueba, sin dinero real.</p>
<h2>Qué abrir</h2><ul><li><a href="/dashboard">Panel del comercio</a> (<code>/dashboard</code>): entra con los tokens de la cuenta.</li>
<li><a href="/docs">Documentación de la API</a> (<code>/docs</code>) y <a href="/api/openapi.json">OpenAPI</a>.</li>
<li><a href="/healthz">/healthz</a> y <a href="/readyz">/readyz</a>.</li></ul>
<h2>Una primera llamada firmada</h2><p>Los tokens de la cuenta demo se mostraron en el primer inicio; <code>bin/cobro accounts list</code> y <code>bin/cobro accounts show &lt;id&gt;</code> los muestran de nuevo.</p>
<pre>PUB=&lt;public token&gt;; PRIV=&lt;private token&gt;
SIGN=$(bin/cobro sign --token $PRIV --path /api/account)
curl -s ${base}/api/account -H "Authorization: Bearer $PUB" -H "Sign: $SIGN"</pre>`;
}

function sendHome(reply: FastifyReply, body: Html, sandbox: boolean): FastifyReply {
  const nonce = crypto.randomBytes(16).toString('base64');
  reply.header(
    'content-security-policy',
    `default-src 'none'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'`,
  );
  const doc = html`<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${sandbox ? '[Sandbox] Cobro' : 'Cobro'}</title><style nonce="${nonce}">${raw(style)}</style></head><body><main>${body}</main></body></html>`;
  return reply.type('text/html; charset=utf-8').send(doc.__html);
}

export async function homeRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const sandbox = ctx.config.mode === 'sandbox';
  const links = {
    dashboard: '/dashboard',
    docs: '/docs',
    openapi: '/api/openapi.json',
    healthz: '/healthz',
    readyz: '/readyz',
  };
  app.get('/', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    reply.header('cache-control', 'no-store').header('vary', 'Accept');
    if (wantsHtml(request)) {
      return sendHome(
        reply,
        sandbox
          ? sandboxBody(ctx.config.publicBaseUrl)
          : html`<h1>Cobro</h1><p>El servicio está funcionando.</p>`,
        sandbox,
      );
    }
    return sandbox
      ? { status: 'success', service: 'cobro', mode: 'sandbox', links }
      : { status: 'success', service: 'cobro' };
  });
}

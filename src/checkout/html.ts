// Server-rendered HTML for the hosted checkout: escaping, the page frame with its inline stylesheet under a
// per-response CSP nonce, and money as payers read it ($25.000, S/ 125.50). No script and no asset from outside the service.
import crypto from 'node:crypto';
import type { FastifyReply } from 'fastify';

export type Html = { readonly __html: string };

export function raw(text: string): Html {
  return { __html: text };
}

const escapes: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function esc(value: string | number | bigint): string {
  return String(value).replace(/[&<>"']/g, (c) => escapes[c] ?? c);
}

/** Tagged template: interpolated values are escaped unless they are already Html (or arrays of Html). */
export function html(
  strings: TemplateStringsArray,
  ...values: ReadonlyArray<string | number | bigint | Html | readonly Html[] | null>
): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    if (v === null) out += '';
    else if (Array.isArray(v)) out += (v as readonly Html[]).map((h) => h.__html).join('');
    else if (typeof v === 'object') out += (v as Html).__html;
    else out += esc(v as string | number | bigint);
    out += strings[i + 1] ?? '';
  });
  return raw(out);
}

/** Money as the currency's country writes it: the one formatter the dashboard uses too. */
export { formatMoney } from '../platform/money/money-format.ts';

const stylesheet = `
*{box-sizing:border-box}body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f5f8;color:#1d2430}
main{max-width:440px;margin:32px auto;padding:0 16px}.card{background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.08);padding:24px}
header.brand{font-weight:700;color:#0b6e4f;letter-spacing:.02em;margin-bottom:16px}h1{font-size:1.2rem;margin:0 0 4px}
.merchant{color:#566070;font-size:.9rem}.amount{font-size:2rem;font-weight:700;margin:12px 0 4px}.subject{color:#333;margin-bottom:16px;word-wrap:break-word}
label{display:block;font-size:.85rem;margin:12px 0 4px;color:#384252}input,select{width:100%;padding:10px;font-size:1rem;border:1px solid #767f8f;border-radius:8px}
[aria-invalid=true]{border:2px solid #a11d1d}
.row{display:flex;gap:12px}.row>div{flex:1}button,.button{display:block;width:100%;margin-top:20px;padding:12px;font-size:1rem;font-weight:600;color:#fff;background:#0b6e4f;border:0;border-radius:8px;text-align:center;text-decoration:none;cursor:pointer}
ul.methods{list-style:none;padding:0;margin:0}ul.methods li{margin:8px 0}ul.methods a{display:block;padding:12px;border:1px solid #767f8f;border-radius:8px;color:#1d2430;text-decoration:none}
ul.methods small{display:block;color:#667085}.error{background:#fdecec;color:#8a1c1c;border-radius:8px;padding:10px;margin:12px 0}
.notice{background:#eef4ff;color:#1d3a8a;border-radius:8px;padding:10px;margin:12px 0}.ok{color:#0b6e4f}.bad{color:#a11d1d}.muted{color:#667085;font-size:.85rem}
.button.secondary{background:#fff;color:#0b6e4f;border:2px solid #0b6e4f}
footer{text-align:center;color:#525b6a;font-size:.8rem;margin-top:16px}
.badge{display:inline-block;margin-left:8px;padding:2px 8px;border-radius:999px;background:#fff3cd;color:#6b4500;font-size:.75rem;font-weight:700;letter-spacing:0}
dl.receipt{margin:16px 0;padding:12px;background:#f3f5f8;border-radius:8px;font-size:.9rem}
dl.receipt dt{color:#4a5362;font-size:.8rem}dl.receipt dd{margin:0 0 8px;font-weight:600;overflow-wrap:anywhere}dl.receipt dd:last-child{margin:0}`;

/** What the page's footer tells the payer about the secret they type: a card's data, or a bank password. */
type PrivacyNotice = 'card' | 'bank';

const privacyNotices: Readonly<Record<PrivacyNotice, string>> = {
  card: 'Los datos de tu tarjeta se envían solo al procesador de pagos y no se guardan.',
  bank: 'Tu clave se usa solo para autorizar esta transferencia con tu banco y no se guarda.',
};

/** Cobro's mark, served at /favicon.svg and /favicon.ico (browsers ask for the latter on their own). */
export const faviconSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b6e4f"/><path d="M21.5 11.2A7 7 0 1 0 21.5 20.8" fill="none" stroke="#fff" stroke-width="3.6" stroke-linecap="round"/></svg>';

/** Set on the checkout's replies in sandbox mode (routes.ts): every page then carries the sandbox badge. */
interface SandboxAware {
  readonly sandboxBadge?: boolean;
}

export interface Page {
  readonly title: string;
  readonly body: Html;
  readonly notice?: PrivacyNotice;
  /** An origin a form of this page may post to besides the service (the acquirer's page, Webpay Plus). */
  readonly formOrigin?: string;
}

/** `sandbox`: whether to show the badge, for a reply from outside the checkout plugin (which decorates its own). */
export function sendPage(
  reply: FastifyReply,
  statusCode: number,
  page: Page,
  sandbox = (reply as FastifyReply & SandboxAware).sandboxBadge === true,
): FastifyReply {
  const nonce = crypto.randomBytes(16).toString('base64');
  reply.header(
    'content-security-policy',
    `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self' data:; form-action 'self'${page.formOrigin === undefined ? '' : ` ${page.formOrigin}`}; frame-ancestors 'none'; base-uri 'none'`,
  );
  const doc = html`<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${sandbox ? `[Sandbox] ${page.title}` : page.title}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml"><style nonce="${nonce}">${raw(stylesheet)}</style></head>
<body><main><header class="brand">Cobro · Pago seguro${sandbox ? html`<span class="badge" data-testid="sandbox-badge">Sandbox · pago de prueba, sin dinero real</span>` : null}</header>
<div class="card">${page.body}</div>${page.notice === undefined ? null : html`<footer data-testid="privacy-notice">${privacyNotices[page.notice]}</footer>`}</main></body></html>`;
  return reply.code(statusCode).type('text/html; charset=utf-8').send(doc.__html);
}

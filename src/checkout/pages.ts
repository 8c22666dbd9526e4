// The checkout's pages, in Spanish. Inputs the payer typed are never echoed back for card number and CVV.
import { formatMoney, html, type Html, type Page } from './html.ts';
import { abortedByPayer } from '../platform/processors/processor.ts';
import { bankFields, cardFields, problemBox } from './form-html.ts';
import type { FormProblem } from './form-problems.ts';

export interface OrderSummary {
  readonly merchant: string;
  readonly subject: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly order: string;
}

export interface MethodOption {
  readonly payment: number;
  readonly name: string;
  readonly description: string;
  readonly kind: 'card' | 'bank_transfer';
}

export interface LinkParams {
  readonly id: string;
  readonly valid: string;
}

function checkoutPath(link: LinkParams, method?: number): string {
  const q = new URLSearchParams({ id: link.id, valid: link.valid });
  if (method !== undefined) q.set('method', String(method));
  return `/gateway/cobro?${q.toString()}`;
}

export function summary(o: OrderSummary): Html {
  return html`<h1>${o.merchant}</h1><div class="merchant">Orden ${o.order}</div>
<div class="amount" data-testid="amount">${formatMoney(o.amountMinor, o.currency)}</div><div class="subject">${o.subject}</div>`;
}

function hidden(link: LinkParams, method: number): Html {
  return html`<input type="hidden" name="id" value="${link.id}"><input type="hidden" name="valid" value="${link.valid}"><input type="hidden" name="method" value="${method}">`;
}

export function methodsPage(
  o: OrderSummary,
  link: LinkParams,
  methods: readonly MethodOption[],
  notice: string | null,
  returnUrl: string | null = null,
): Page {
  const items = methods.map(
    (m) =>
      html`<li><a href="${checkoutPath(link, m.payment)}">${m.name}<small>${m.description}</small></a></li>`,
  );
  // With nothing to offer, the payer is never stranded: a way back to the shop, or what to do without one.
  const back =
    returnUrl === null
      ? html`<p data-testid="no-way-back">No se hizo ningún cobro. Puedes cerrar esta página y volver a ${o.merchant} para pagar de otra forma.</p>`
      : html`<a class="button" href="${returnUrl}" data-testid="back-to-merchant">Volver al comercio</a>`;
  const body =
    methods.length === 0
      ? html`${summary(o)}<div class="error" role="alert">No hay medios de pago disponibles para esta moneda.</div>${back}`
      : html`${summary(o)}${notice === null ? null : html`<div class="notice">${notice}</div>`}<h2>Elige cómo pagar</h2><ul class="methods">${items}</ul>`;
  return { title: `Pagar ${formatMoney(o.amountMinor, o.currency)} · ${o.merchant}`, body };
}

/** Instalment choices per method code (reference §1.1: 100 = 1-3, 101 = 4-6, 102 = 7-12). */
export const installmentRanges: Readonly<Record<number, readonly [number, number]>> = {
  100: [1, 3],
  101: [4, 6],
  102: [7, 12],
};

export function cardPage(
  o: OrderSummary,
  link: LinkParams,
  method: MethodOption,
  problems: readonly FormProblem[],
  back: boolean,
): Page {
  const body = html`${summary(o)}<h2>${method.name}</h2>${problemBox(problems)}
<form method="post" action="/gateway/cobro" autocomplete="on">${hidden(link, method.payment)}
${cardFields(problems, installmentRanges[method.payment] ?? null)}<button type="submit">Pagar ${formatMoney(o.amountMinor, o.currency)}</button></form>
${back ? html`<p class="muted"><a href="${checkoutPath(link)}">Elegir otro medio de pago</a></p>` : null}`;
  return { title: `${method.name} · ${o.merchant}`, body, notice: 'card' };
}

export interface BankChoice {
  readonly code: string;
  readonly name: string;
}

export function bankPage(
  o: OrderSummary,
  link: LinkParams,
  method: MethodOption,
  banks: readonly BankChoice[],
  state: {
    readonly problems: readonly FormProblem[];
    readonly rut: string;
    readonly rutFixed: boolean;
    readonly bank: string | null;
    readonly back: boolean;
  },
): Page {
  const body = html`${summary(o)}<h2>${method.name}</h2><p class="muted">Ingresa con los datos de tu banco para autorizar la transferencia.</p>${problemBox(state.problems)}
<form method="post" action="/gateway/cobro">${hidden(link, method.payment)}
${bankFields(state.problems, { banks, bank: state.bank, rut: state.rut, rutFixed: state.rutFixed })}
<button type="submit">Transferir ${formatMoney(o.amountMinor, o.currency)}</button></form>
${state.back ? html`<p class="muted"><a href="${checkoutPath(link)}">Elegir otro medio de pago</a></p>` : null}`;
  return { title: `${method.name} · ${o.merchant}`, body, notice: 'bank' };
}

export type ResultKind = 'success' | 'refunded' | 'rejected' | 'expired' | 'processing';

/** What the payer keeps from a successful payment, beside the order summary. */
export interface Receipt {
  /** `YYYY-MM-DD HH:MM:SS`, the transaction's time of payment. */
  readonly paidAt: string;
  readonly method: string;
  readonly cardLast4: string | null;
  readonly authorizationCode: string | null;
  readonly bank: string | null;
}

function receiptList(o: OrderSummary, r: Receipt): Html {
  const row = (term: string, value: string | null) =>
    value === null ? null : html`<dt>${term}</dt><dd>${value}</dd>`;
  return html`<h3>Comprobante</h3><dl class="receipt" data-testid="receipt">${row('Monto', formatMoney(o.amountMinor, o.currency))}${row('Comercio', o.merchant)}${row(
    'Orden',
    o.order,
  )}${row('Fecha', r.paidAt)}${row('Medio de pago', r.method)}${row('Tarjeta', r.cardLast4 === null ? null : `•••• ${r.cardLast4}`)}${row(
    'Código de autorización',
    r.authorizationCode,
  )}${row('Banco', r.bank)}</dl>`;
}

/**
 * What a refunded payment's page says of the money (decision 1075): what was given back and, for a refund in
 * part, what stays charged (`keptMinor`; null when all was given back), written as the currency's country does.
 */
export function refundedText(
  refundedMinor: bigint,
  keptMinor: bigint | null,
  currency: string,
): string {
  const given = `Devuelto: ${formatMoney(refundedMinor, currency)}.`;
  return keptMinor === null
    ? given
    : `${given} Queda cobrado: ${formatMoney(keptMinor, currency)}.`;
}

/** What the payer reads of a rejection: the gateway's text, in Spanish where the API keeps it in English. */
export function payerReason(gatewayMessage: string | null): string | null {
  return gatewayMessage === abortedByPayer
    ? 'Anulaste el pago: no se realizó ningún cobro.'
    : gatewayMessage;
}

/**
 * The result stays on screen until the payer leaves it: no automatic redirect (a payer must be able to read and
 * keep the receipt; axe's `meta-refresh`), a "Volver a <shop>" button, and on the processing page a button that
 * asks again instead of a timed reload.
 */
export function resultPage(
  o: OrderSummary,
  kind: ResultKind,
  detail: string | null,
  returnUrl: string | null,
  link: LinkParams,
  receipt: Receipt | null = null,
): Page {
  const heading = {
    success: html`<h2 class="ok" data-testid="result">Pago exitoso</h2>`,
    refunded: html`<h2 data-testid="result">Pago devuelto</h2>`,
    rejected: html`<h2 class="bad" data-testid="result">Pago rechazado</h2>`,
    expired: html`<h2 class="bad" data-testid="result">El plazo para pagar expiró</h2>`,
    processing: html`<h2 data-testid="result">Estamos procesando tu pago</h2>`,
  }[kind];
  const next =
    kind === 'processing'
      ? html`<p class="muted">Tu banco aún no responde. Actualiza en unos segundos para ver el resultado.</p><a class="button" href="${checkoutPath(link)}" data-testid="refresh">Actualizar</a>`
      : returnUrl === null
        ? null
        : html`<a class="button" href="${returnUrl}" data-testid="back-to-merchant">Volver a ${o.merchant}</a>`;
  return {
    title: `Resultado del pago · ${o.merchant}`,
    body: html`${summary(o)}${heading}${detail === null ? null : html`<p>${detail}</p>`}${
      (kind === 'success' || kind === 'refunded') && receipt !== null
        ? receiptList(o, receipt)
        : null
    }${next}`,
  };
}

export function invalidLinkPage(): Page {
  return {
    title: 'Enlace de pago no válido',
    body: html`<h1>Enlace de pago no válido</h1><p>Revisa el enlace que te envió el comercio o pídele uno nuevo.</p>`,
  };
}

export function errorPage(message: string): Page {
  return {
    title: 'No pudimos procesar la solicitud',
    body: html`<h1>No pudimos procesar la solicitud</h1><p>${message}</p>`,
  };
}

/** A card method whose payer types the card on the acquirer's page (Webpay Plus): one button to go there. */
/** What a redirecting method's page says: the notice above its one button, and the button. */
export interface RedirectCopy {
  readonly notice: string;
  /** The button's text after "Pagar <amount> con". */
  readonly via: string;
  readonly testId: string;
}

export const webpayCopy: RedirectCopy = {
  notice:
    'Ingresarás los datos de tu tarjeta en la página segura de Transbank (Webpay Plus); las cuotas se eligen allí.',
  via: 'Webpay',
  testId: 'pay-webpay',
};

/** A method paid on the acquirer's own page (Webpay, Fintoc): one button that starts it, no form fields. */
export function redirectMethodPage(
  o: OrderSummary,
  link: LinkParams,
  method: MethodOption,
  problems: readonly FormProblem[],
  back: boolean,
  copy: RedirectCopy,
): Page {
  const body = html`${summary(o)}<h2>${method.name}</h2>${problemBox(problems)}
<p class="muted">${copy.notice}</p>
<form method="post" action="/gateway/cobro">${hidden(link, method.payment)}<button type="submit" data-testid="${copy.testId}">Pagar ${formatMoney(o.amountMinor, o.currency)} con ${copy.via}</button></form>
${back ? html`<p class="muted"><a href="${checkoutPath(link)}">Elegir otro medio de pago</a></p>` : null}`;
  return { title: `${method.name} · ${o.merchant}`, body };
}

/**
 * The acquirer did not answer when the payer chose to pay (issue 32): nothing was charged; "Reintentar" posts the
 * same step again, "Volver al comercio" leaves for `urlreturn` (or says what to do without one).
 */
export function processorUnavailablePage(
  o: OrderSummary,
  link: LinkParams,
  method: MethodOption,
  returnUrl: string | null,
): Page {
  const back =
    returnUrl === null
      ? html`<p class="muted" data-testid="no-way-back">Si prefieres no esperar, puedes cerrar esta página y volver a ${o.merchant}.</p>`
      : html`<a class="button secondary" href="${returnUrl}" data-testid="back-to-merchant">Volver al comercio</a>`;
  const body = html`${summary(o)}<h2>Webpay no responde</h2><div class="error" role="alert">No pudimos conectar con Transbank para iniciar tu pago. No se realizó ningún cobro.</div>
<p>Puedes intentarlo de nuevo en unos segundos.</p>
<form method="post" action="/gateway/cobro">${hidden(link, method.payment)}<button type="submit" data-testid="retry">Reintentar</button></form>${back}`;
  return { title: `Webpay no responde · ${o.merchant}`, body };
}

/** Sends the payer to the acquirer: a form posting the token as `token_ws` (no JavaScript, one click). */
export function acquirerPage(o: OrderSummary, url: string, token: string): Page {
  const body = html`${summary(o)}<h2>Continúa en Webpay</h2><p class="muted">Te llevaremos a la página de Transbank para ingresar tu tarjeta.</p>
<form method="post" action="${url}"><input type="hidden" name="token_ws" value="${token}"><button type="submit">Continuar a Webpay</button></form>`;
  return { title: `Webpay · ${o.merchant}`, body, formOrigin: new URL(url).origin };
}

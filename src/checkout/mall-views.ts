// The mall checkout's pages as HTML (mall-pages.ts serves them): the stores' summary, the methods, the card or
// bank form, and the result.
import { formatTimestamp } from '../platform/time/time-format.ts';
import type { MallRow } from '../modules/mall/repository.ts';
import { formatMoney, html, type Html, type Page } from './html.ts';
import type { MethodOption } from './pages.ts';
import { bankFields, cardFields, problemBox } from './form-html.ts';
import type { FormProblem } from './form-problems.ts';

export interface MallSummary {
  readonly mall: MallRow;
  readonly lines: ReadonlyArray<{
    readonly name: string;
    readonly subject: string;
    readonly amountMinor: bigint;
  }>;
  /** How much of the payment the stores gave back: every store all of its line, some of it, or nothing. */
  readonly refunded: 'none' | 'part' | 'all';
  /** What the stores' refunds gave back, in total (decision 1075). */
  readonly refundedMinor: bigint;
  /** Where the receipt's date is read (TIMEZONE). */
  readonly timeZone: string;
}

const pathOf = (id: string, method?: number) =>
  `/gateway/mall/${encodeURIComponent(id)}${method === undefined ? '' : `?method=${method}`}`;

function summary(s: MallSummary): Html {
  const total = formatMoney(BigInt(s.mall.amount_minor), s.mall.currency);
  const rows = s.lines.map(
    (l) =>
      html`<li data-testid="store"><strong>${l.name}</strong> · ${l.subject}<span class="merchant"> ${formatMoney(l.amountMinor, s.mall.currency)}</span></li>`,
  );
  return html`<h1>Compra en ${s.lines.length} tiendas</h1><div class="merchant">Orden ${s.mall.order}</div>
<div class="amount" data-testid="amount">${total}</div><ul class="subject">${rows}</ul>`;
}

export function methodsPage(s: MallSummary, methods: readonly MethodOption[]): Page {
  const items = methods.map(
    (m) =>
      html`<li><a href="${pathOf(s.mall.id, m.payment)}">${m.name}<small>${m.description}</small></a></li>`,
  );
  const body =
    methods.length === 0
      ? html`${summary(s)}<div class="error" role="alert">No hay medios de pago disponibles para esta moneda.</div><a class="button" href="${s.mall.urlreturn}" data-testid="back-to-merchant">Volver al comercio</a>`
      : html`${summary(s)}<h2>Elige cómo pagar</h2><ul class="methods">${items}</ul>`;
  return { title: `Pagar ${formatMoney(BigInt(s.mall.amount_minor), s.mall.currency)}`, body };
}

export function formPage(
  s: MallSummary,
  method: MethodOption,
  problems: readonly FormProblem[],
  banks: ReadonlyArray<{ code: string; name: string }>,
): Page {
  const total = formatMoney(BigInt(s.mall.amount_minor), s.mall.currency);
  const inputs =
    method.kind === 'card'
      ? cardFields(problems)
      : bankFields(problems, { banks, bank: null, rut: '', rutFixed: false });
  const body = html`${summary(s)}<h2>${method.name}</h2>${problemBox(problems)}
<form method="post" action="${pathOf(s.mall.id)}"><input type="hidden" name="method" value="${method.payment}">${inputs}
<button type="submit">Pagar ${total}</button></form>`;
  return { title: `${method.name} · Mall`, body };
}

/** Like the transaction's result page (pages.ts): it stays until the payer leaves it, by a button. */
export function resultPage(
  s: MallSummary,
  kind: 'success' | 'refunded' | 'rejected' | 'processing',
  detail: string | null,
): Page {
  const heading = {
    success: html`<h2 class="ok" data-testid="result">Pago exitoso</h2>`,
    refunded: html`<h2 data-testid="result">Pago devuelto</h2>`,
    rejected: html`<h2 class="bad" data-testid="result">Pago rechazado</h2>`,
    processing: html`<h2 data-testid="result">Estamos procesando tu pago</h2>`,
  }[kind];
  const m = s.mall;
  const receipt =
    kind !== 'success' && kind !== 'refunded'
      ? null
      : html`<h3>Comprobante</h3><dl class="receipt" data-testid="receipt"><dt>Monto</dt><dd>${formatMoney(BigInt(m.amount_minor), m.currency)}</dd>${html`<dt>Orden</dt><dd>${m.order}</dd>`}${m.ended_at === null ? null : html`<dt>Fecha</dt><dd>${formatTimestamp(m.ended_at, s.timeZone)}</dd>`}${
          m.media === null ? null : html`<dt>Medio de pago</dt><dd>${m.media}</dd>`
        }${m.card_last4 === null ? null : html`<dt>Tarjeta</dt><dd>•••• ${m.card_last4}</dd>`}${
          m.authorization_code === null
            ? null
            : html`<dt>Código de autorización</dt><dd>${m.authorization_code}</dd>`
        }</dl>`;
  const next =
    kind === 'processing'
      ? html`<p class="muted">Tu banco aún no responde. Actualiza en unos segundos para ver el resultado.</p><a class="button" href="${pathOf(m.id)}" data-testid="refresh">Actualizar</a>`
      : html`<a class="button" href="${m.urlreturn}" data-testid="back-to-merchant">Volver al comercio</a>`;
  return {
    title: 'Resultado del pago · Mall',
    body: html`${summary(s)}${heading}${detail === null ? null : html`<p>${detail}</p>`}${receipt}${next}`,
  };
}

// The mall's checkout page at /gateway/mall/{id} (reference §0.1, §5): the payer sees every store's line and the
// total, pays the sum once by card or bank transfer, and sees the result. One page kind of the checkout
// (page-kinds.ts); the mall id is the link (30 random characters, as the reference's URL carries nothing else).
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { limits, mallLimits } from '../limits/index.ts';
import { formatDate, formatTimestamp } from '../platform/time/time-format.ts';
import { attemptMallPayment, type MallAttemptOutcome } from '../modules/mall/mall-payment.ts';
import { findMall, linesOf, type MallRow } from '../modules/mall/repository.ts';
import { allMethodsPayment } from '../modules/transactions/transaction-create.ts';
import { banksFor, offeredMethods } from './checkout-service.ts';
import { parseBankForm, parseCardForm } from './forms.ts';
import { formatMoney, html, sendPage, type Html, type Page } from './html.ts';
import { invalidLinkPage, type MethodOption } from './pages.ts';
import type { CheckoutPageKind, CheckoutRouter } from './page-kinds.ts';

const MallParams = Type.Object({ id: Type.String({ maxLength: mallLimits.idLengthMax }) });
const MallQuery = Type.Object({
  method: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.paymentMethodCodeMax })),
});
const field = Type.Optional(Type.String({ maxLength: limits.checkoutFieldLengthMax }));
const MallForm = Type.Object({
  method: Type.Integer({ minimum: 1, maximum: limits.paymentMethodCodeMax }),
  card_number: field,
  expiry: field,
  cvv: field,
  installments: field,
  rut: field,
  password: field,
  bank: field,
});

interface MallSummary {
  readonly mall: MallRow;
  readonly lines: ReadonlyArray<{
    readonly name: string;
    readonly subject: string;
    readonly amountMinor: bigint;
  }>;
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

function problemsOf(list: readonly string[]): Html {
  return list.length === 0
    ? html``
    : html`<div class="error" role="alert">${list.map((e) => html`<div>${e}</div>`)}</div>`;
}

function methodsPage(s: MallSummary, methods: readonly MethodOption[]): Page {
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

function formPage(
  s: MallSummary,
  method: MethodOption,
  problems: readonly string[],
  banks: ReadonlyArray<{ code: string; name: string }>,
): Page {
  const total = formatMoney(BigInt(s.mall.amount_minor), s.mall.currency);
  const inputs =
    method.kind === 'card'
      ? html`<label for="card_number">Número de tarjeta</label><input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" maxlength="23" required>
<div class="row"><div><label for="expiry">Vencimiento (MM/AA)</label><input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/AA" maxlength="7" required></div>
<div><label for="cvv">CVV</label><input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required></div></div>`
      : html`<label for="bank">Banco</label><select id="bank" name="bank">${banks.map((b) => html`<option value="${b.code}">${b.name}</option>`)}</select>
<label for="rut">RUT</label><input id="rut" name="rut" placeholder="11.111.111-1" maxlength="12" required>
<label for="password">Clave</label><input id="password" name="password" type="password" autocomplete="off" maxlength="64" required>`;
  const body = html`${summary(s)}<h2>${method.name}</h2>${problemsOf(problems)}
<form method="post" action="${pathOf(s.mall.id)}"><input type="hidden" name="method" value="${method.payment}">${inputs}
<button type="submit">Pagar ${total}</button></form>`;
  return { title: `${method.name} · Mall`, body };
}

/** Like the transaction's result page (pages.ts): it stays until the payer leaves it, by a button. */
function resultPage(
  s: MallSummary,
  kind: 'success' | 'rejected' | 'processing',
  detail: string | null,
): Page {
  const heading = {
    success: html`<h2 class="ok" data-testid="result">Pago exitoso</h2>`,
    rejected: html`<h2 class="bad" data-testid="result">Pago rechazado</h2>`,
    processing: html`<h2 data-testid="result">Estamos procesando tu pago</h2>`,
  }[kind];
  const m = s.mall;
  const receipt =
    kind !== 'success'
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

async function load(ctx: AppContext, id: string): Promise<MallSummary | null> {
  const mall = await findMall(ctx.db, id);
  if (mall === undefined) return null;
  const lines = (await linesOf(ctx.db, id)).map((l) => ({
    name: l.store_name,
    subject: l.subject,
    amountMinor: BigInt(l.amount_minor),
  }));
  return { mall, lines, timeZone: ctx.config.timeZone };
}

/** The first opening of the page is when each store's transaction started (conciliation's `start`). */
async function markOpened(ctx: AppContext, mall: MallRow): Promise<void> {
  if (mall.checkout_opened_at !== null) return;
  const at = await ctx.accountClock.now(mall.account_id, ctx.db);
  const opened = await ctx.db
    .updateTable('malls')
    .set({ checkout_opened_at: at })
    .where('id', '=', mall.id)
    .where('checkout_opened_at', 'is', null)
    .executeTakeFirst();
  if (opened.numUpdatedRows === 0n) return;
  const ids = (await linesOf(ctx.db, mall.id)).map((l) => l.transaction_id);
  await ctx.db
    .updateTable('transactions')
    .set({ checkout_opened_at: at })
    .where('id', 'in', ids)
    .where('checkout_opened_at', 'is', null)
    .execute();
}

function register(r: CheckoutRouter, ctx: AppContext): void {
  async function methodsFor(
    mall: MallRow,
  ): Promise<{ methods: readonly MethodOption[]; fixed: MethodOption | null }> {
    const methods = await offeredMethods(ctx, mall.currency);
    return {
      methods,
      fixed:
        mall.payment === allMethodsPayment
          ? null
          : (methods.find((m) => m.payment === mall.payment) ?? null),
    };
  }

  async function show(
    reply: FastifyReply,
    s: MallSummary,
    chosen: number | undefined,
  ): Promise<FastifyReply> {
    const mall = s.mall;
    if (mall.status !== 'pending')
      return sendPage(
        reply,
        200,
        resultPage(
          s,
          mall.status === 'success' ? 'success' : 'rejected',
          mall.status === 'rejected' ? mall.gateway_message : null,
        ),
      );
    if (
      mall.attempt_lease_until !== null &&
      mall.attempt_lease_until.getTime() >
        (await ctx.accountClock.now(mall.account_id, ctx.db)).getTime()
    ) {
      return sendPage(reply, 200, resultPage(s, 'processing', null));
    }
    await markOpened(ctx, mall);
    const { methods, fixed } = await methodsFor(mall);
    const method = fixed ?? methods.find((m) => m.payment === chosen) ?? null;
    if (method === null) return sendPage(reply, 200, methodsPage(s, methods));
    return sendPage(reply, 200, formPage(s, method, [], await banksFor(ctx, mall.currency)));
  }

  r.get(
    '/gateway/mall/:id',
    {
      config: { auth: 'none' },
      schema: { hide: true, params: MallParams, querystring: MallQuery },
    },
    async (request, reply) => {
      const s = await load(ctx, request.params.id);
      if (s === null) return sendPage(reply, 404, invalidLinkPage());
      return show(reply, s, request.query.method);
    },
  );

  r.post(
    '/gateway/mall/:id',
    {
      config: { auth: 'none' },
      bodyLimit: limits.checkoutFormBytesMax,
      schema: { hide: true, params: MallParams, body: MallForm },
    },
    async (request, reply) => {
      const s = await load(ctx, request.params.id);
      if (s === null) return sendPage(reply, 404, invalidLinkPage());
      const mall = s.mall;
      if (mall.status !== 'pending') return show(reply, s, undefined);
      const { methods, fixed } = await methodsFor(mall);
      const form = request.body;
      const method = methods.find(
        (m) => m.payment === form.method && (fixed === null || fixed.payment === m.payment),
      );
      if (method === undefined) return show(reply, s, undefined);
      const base = { mallId: mall.id, method, payerIp: request.ip };
      let outcome: MallAttemptOutcome;
      if (method.kind === 'card') {
        const month = formatDate(
          await ctx.accountClock.now(mall.account_id, ctx.db),
          ctx.config.timeZone,
        ).slice(0, 7);
        const parsed = parseCardForm(form, method.payment, month);
        if (!parsed.ok) return sendPage(reply, 422, formPage(s, method, parsed.problems, []));
        outcome = await attemptMallPayment(ctx, {
          ...base,
          charge: {
            kind: 'card',
            card: parsed.value.card,
            installments: parsed.value.installments,
          },
          payerIdentifier: null,
          payerBank: null,
        });
      } else {
        const banks = await banksFor(ctx, mall.currency);
        const parsed = parseBankForm(form, null, new Set(banks.map((b) => b.code)));
        if (!parsed.ok) return sendPage(reply, 422, formPage(s, method, parsed.problems, banks));
        outcome = await attemptMallPayment(ctx, {
          ...base,
          charge: {
            kind: 'bank_transfer',
            rut: parsed.value.rut,
            password: parsed.value.password,
            bankCode: parsed.value.bank,
          },
          payerIdentifier: parsed.value.rut,
          payerBank: banks.find((b) => b.code === parsed.value.bank)?.name ?? null,
        });
      }
      switch (outcome.kind) {
        case 'approved': // read again, so the receipt shows what the payment recorded (date, card, authorization code)
          return sendPage(
            reply,
            200,
            resultPage((await load(ctx, s.mall.id)) ?? s, 'success', null),
          );
        case 'declined':
          return sendPage(reply, 200, resultPage(s, 'rejected', outcome.payerMessage));
        case 'in_progress':
          return sendPage(reply, 200, resultPage(s, 'processing', null));
        case 'final': {
          const fresh = await load(ctx, mall.id);
          return fresh === null
            ? sendPage(reply, 404, invalidLinkPage())
            : show(reply, fresh, undefined);
        }
        default: {
          const never: never = outcome;
          return never;
        }
      }
    },
  );
}

export const mallPages: CheckoutPageKind = { kind: 'mall', register };

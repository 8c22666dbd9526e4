// The mall's checkout page at /gateway/mall/{id} (reference §0.1, §5): the payer sees every store's line and the
// total, pays the sum once by card or bank transfer, and sees the result. One page kind of the checkout
// (page-kinds.ts); the mall id is the link (30 random characters, as the reference's URL carries nothing else).
import type { FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { limits, mallLimits } from '../limits/index.ts';
import { formatDate } from '../platform/time/time-format.ts';
import { attemptMallPayment, type MallAttemptOutcome } from '../modules/mall/mall-payment.ts';
import { findMall, linesOf, type MallRow } from '../modules/mall/repository.ts';
import { allMethodsPayment } from '../modules/transactions/transaction-create.ts';
import { banksFor, offeredMethods } from './checkout-service.ts';
import { parseBankForm, parseCardForm } from './forms.ts';
import { sendPage } from './html.ts';
import { invalidLinkPage, refundedText, type MethodOption } from './pages.ts';
import { formPage, methodsPage, resultPage, type MallSummary } from './mall-views.ts';
import { payerReason } from './pages.ts';
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

async function load(ctx: AppContext, id: string): Promise<MallSummary | null> {
  const mall = await findMall(ctx.db, id);
  if (mall === undefined) return null;
  const lines = (await linesOf(ctx.db, id)).map((l) => ({
    name: l.store_name,
    subject: l.subject,
    amountMinor: BigInt(l.amount_minor),
  }));
  const { refunded, refundedMinor } = await refundedPart(ctx, id);
  return { mall, lines, refunded, refundedMinor, timeZone: ctx.config.timeZone };
}

/**
 * How much of a paid mall its stores gave back, read from their transactions (decision 1060): which lines, and
 * the sum of their `refunded_minor` (decision 1075).
 */
async function refundedPart(
  ctx: AppContext,
  id: string,
): Promise<Pick<MallSummary, 'refunded' | 'refundedMinor'>> {
  const rows = await ctx.db
    .selectFrom('mall_lines')
    .innerJoin('transactions', 'transactions.id', 'mall_lines.transaction_id')
    .select(['transactions.status', 'transactions.refunded_minor'])
    .where('mall_lines.mall_id', '=', id)
    .execute();
  const given = rows.filter((r) => r.status === 'refunded' || r.status === 'refunded partial');
  const refundedMinor = given.reduce((sum, r) => sum + BigInt(r.refunded_minor), 0n);
  if (given.length === 0) return { refunded: 'none', refundedMinor };
  return {
    refunded: rows.every((r) => r.status === 'refunded') ? 'all' : 'part',
    refundedMinor,
  };
}

/**
 * What a payer reopening a paid mall reads under the receipt once its stores refunded it (decision 1060), with
 * what was given back and, for a refund in part, what stays charged (decision 1075).
 */
function refundNotice(s: MallSummary): string | null {
  if (s.refunded === 'none') return null;
  const currency = s.mall.currency;
  if (s.refunded === 'all')
    return `Las tiendas anularon este pago y devolvieron el monto completo al medio de pago. ${refundedText(s.refundedMinor, null, currency)}`;
  const keptMinor = BigInt(s.mall.amount_minor) - s.refundedMinor;
  return `Una o más tiendas devolvieron parte de este pago al medio de pago. ${refundedText(s.refundedMinor, keptMinor, currency)}`;
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
  // Each store's transaction opens on its store's clock (decision 920), as its payment is recorded.
  const lines = await linesOf(ctx.db, mall.id);
  for (const storeId of new Set(lines.map((l) => l.store_account_id))) {
    await ctx.db
      .updateTable('transactions')
      .set({ checkout_opened_at: await ctx.accountClock.now(storeId, ctx.db) })
      .where(
        'id',
        'in',
        lines.filter((l) => l.store_account_id === storeId).map((l) => l.transaction_id),
      )
      .where('checkout_opened_at', 'is', null)
      .execute();
  }
}

async function methodsFor(
  ctx: AppContext,
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
  ctx: AppContext,
  reply: FastifyReply,
  s: MallSummary,
  chosen: number | undefined,
): Promise<FastifyReply> {
  const mall = s.mall;
  if (mall.status === 'rejected')
    return sendPage(reply, 200, resultPage(s, 'rejected', payerReason(mall.gateway_message)));
  if (mall.status === 'success')
    return sendPage(
      reply,
      200,
      resultPage(s, s.refunded === 'all' ? 'refunded' : 'success', refundNotice(s)),
    );
  if (
    mall.attempt_lease_until !== null &&
    mall.attempt_lease_until.getTime() > ctx.clock.now().getTime()
  ) {
    return sendPage(reply, 200, resultPage(s, 'processing', null));
  }
  await markOpened(ctx, mall);
  const { methods, fixed } = await methodsFor(ctx, mall);
  const method = fixed ?? methods.find((m) => m.payment === chosen) ?? null;
  if (method === null) return sendPage(reply, 200, methodsPage(s, methods));
  return sendPage(reply, 200, formPage(s, method, [], await banksFor(ctx, mall.currency)));
}

/** The payer's form as a charge, attempted; a form with mistakes answers its page again (422) instead. */
async function attemptFromForm(
  ctx: AppContext,
  reply: FastifyReply,
  s: MallSummary,
  method: MethodOption,
  form: Static<typeof MallForm>,
  payerIp: string,
): Promise<MallAttemptOutcome | { sent: FastifyReply }> {
  const mall = s.mall;
  const base = { mallId: mall.id, method, payerIp };
  let outcome: MallAttemptOutcome;
  if (method.kind === 'card') {
    const month = formatDate(
      await ctx.accountClock.now(mall.account_id, ctx.db),
      ctx.config.timeZone,
    ).slice(0, 7);
    const parsed = parseCardForm(form, method.payment, month);
    if (!parsed.ok) return { sent: sendPage(reply, 422, formPage(s, method, parsed.problems, [])) };
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
    if (!parsed.ok)
      return { sent: sendPage(reply, 422, formPage(s, method, parsed.problems, banks)) };
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
  return outcome;
}

/** The page that answers an attempt's outcome. */
async function answerOutcome(
  ctx: AppContext,
  reply: FastifyReply,
  s: MallSummary,
  outcome: MallAttemptOutcome,
): Promise<FastifyReply> {
  switch (outcome.kind) {
    case 'approved': // read again, so the receipt shows what the payment recorded (date, card, authorization code)
      return sendPage(reply, 200, resultPage((await load(ctx, s.mall.id)) ?? s, 'success', null));
    case 'declined':
      return sendPage(reply, 200, resultPage(s, 'rejected', outcome.payerMessage));
    case 'in_progress':
      return sendPage(reply, 200, resultPage(s, 'processing', null));
    case 'final': {
      const fresh = await load(ctx, s.mall.id);
      return fresh === null
        ? sendPage(reply, 404, invalidLinkPage())
        : show(ctx, reply, fresh, undefined);
    }
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

function register(r: CheckoutRouter, ctx: AppContext): void {
  r.get(
    '/gateway/mall/:id',
    {
      config: { auth: 'none' },
      schema: { hide: true, params: MallParams, querystring: MallQuery },
    },
    async (request, reply) => {
      const s = await load(ctx, request.params.id);
      if (s === null) return sendPage(reply, 404, invalidLinkPage());
      return show(ctx, reply, s, request.query.method);
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
      if (mall.status !== 'pending') return show(ctx, reply, s, undefined);
      const { methods, fixed } = await methodsFor(ctx, mall);
      const form = request.body;
      const method = methods.find(
        (m) => m.payment === form.method && (fixed === null || fixed.payment === m.payment),
      );
      if (method === undefined) return show(ctx, reply, s, undefined);
      const outcome = await attemptFromForm(ctx, reply, s, method, form, request.ip);
      if ('sent' in outcome) return outcome.sent;
      return answerOutcome(ctx, reply, s, outcome);
    },
  );
}

export const mallPages: CheckoutPageKind = { kind: 'mall', register };

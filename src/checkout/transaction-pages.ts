// The transaction's checkout pages at /gateway/cobro?id=trx…&valid=… (reference §0.1): choose a method, fill the
// card or bank form, see the result. One page kind of the checkout (page-kinds.ts).
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { limits, transactionLimits } from '../limits/index.ts';
import { formatDate } from '../platform/time/time-format.ts';
import { checkoutTokenValid } from '../modules/transactions/checkout-link.ts';
import { attemptPayment } from '../modules/transactions/payment-attempt.ts';
import type { AttemptOutcome } from '../modules/transactions/attempt-outcome.ts';
import type { TransactionRow } from '../modules/transactions/repository.ts';
import { sendPage } from './html.ts';
import {
  acquirerPage,
  invalidLinkPage,
  processorUnavailablePage,
  type LinkParams,
  type MethodOption,
} from './pages.ts';
import {
  banksFor,
  fixedMethod,
  loadForCheckout,
  offeredMethods,
  orderSummary,
} from './checkout-service.ts';
import { answerOutcome, payerRutOf, renderForm, showTransaction } from './transaction-views.ts';
import { processorForMethod } from './method-processor.ts';
import { fintocProcessorName } from '../platform/processors/fintoc-processor.ts';
import { fintocLeavePage } from './fintoc-pages.ts';
import { rememberSessionMethod } from '../platform/processors/fintoc-selection.ts';
import { registerFintocReturn } from './fintoc-return.ts';
import {
  ProcessorUnavailableError,
  type PaymentProcessor,
} from '../platform/processors/processor.ts';
import { startRedirectPayment } from '../modules/transactions/redirect-start.ts';
import { acquirerReturnUrl, registerAcquirerReturn } from './acquirer-return.ts';
import { parseBankForm, parseCardForm } from './forms.ts';
import type { CheckoutPageKind, CheckoutRouter } from './page-kinds.ts';

const LinkQuery = Type.Object({
  id: Type.String({ maxLength: limits.checkoutIdLengthMax }),
  valid: Type.String({ maxLength: limits.checkoutFieldLengthMax }),
  method: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.paymentMethodCodeMax })),
});

const field = Type.Optional(Type.String({ maxLength: limits.checkoutFieldLengthMax }));
const PayForm = Type.Object({
  id: Type.String({ maxLength: limits.checkoutIdLengthMax }),
  valid: Type.String({ maxLength: limits.checkoutFieldLengthMax }),
  method: Type.Integer({ minimum: 1, maximum: limits.paymentMethodCodeMax }),
  card_number: field,
  expiry: field,
  cvv: field,
  installments: field,
  rut: field,
  password: field,
  bank: field,
});

type PayFormBody = Static<typeof PayForm>;

/** A payment the payer submitted: its transaction, link, chosen method and form; `back` when it may choose again. */
interface Paying {
  readonly row: TransactionRow;
  readonly link: LinkParams;
  readonly method: MethodOption;
  readonly form: PayFormBody;
  readonly back: boolean;
}

type Attempted = AttemptOutcome | { readonly sent: FastifyReply };

/**
 * The payment is made on the acquirer's page (a card on Webpay's, a bank transfer on Fintoc's): its transaction
 * created and the payer sent there (or told it is down).
 */
async function startAtAcquirer(
  ctx: AppContext,
  log: FastifyBaseLogger,
  reply: FastifyReply,
  { row, link, method }: Paying,
  processor: PaymentProcessor,
): Promise<Attempted> {
  const started = await startRedirectPayment(ctx, {
    transactionId: row.id,
    accountId: row.account_id,
    method,
    processor,
    returnUrl: acquirerReturnUrl(ctx),
  }).catch((error: unknown) => {
    if (error instanceof ProcessorUnavailableError) return error;
    throw error;
  });
  if (started instanceof ProcessorUnavailableError) {
    log.warn(
      { err: started, transaction: row.id },
      'acquirer unreachable at the start of a payment',
    );
    reply.header('retry-after', String(transactionLimits.acquirer.unavailableRetryAfterSeconds));
    return {
      sent: sendPage(
        reply,
        503,
        processorUnavailablePage(await orderSummary(ctx, row), link, method, row.urlreturn),
      ),
    };
  }
  if (started.kind !== 'redirect') return started;
  const fintoc = processor.name === fintocProcessorName;
  if (fintoc) await rememberSessionMethod(ctx, started.token, method.payment);
  const summary = await orderSummary(ctx, row);
  return {
    sent: sendPage(
      reply,
      200,
      fintoc
        ? fintocLeavePage(summary, started.url)
        : acquirerPage(summary, started.url, started.token),
    ),
  };
}

/** A card typed on the checkout's own form, charged. */
async function cardAttempt(
  ctx: AppContext,
  reply: FastifyReply,
  { row, link, method, form, back }: Paying,
  payerIp: string,
): Promise<Attempted> {
  const month = formatDate(
    await ctx.accountClock.now(row.account_id, ctx.db, { kept: true }),
    ctx.config.timeZone,
  ).slice(0, 7);
  const parsed = parseCardForm(form, method.payment, month);
  if (!parsed.ok)
    return { sent: await renderForm(ctx, reply, 422, row, link, method, parsed.problems, back) };
  return attemptPayment(ctx, {
    transactionId: row.id,
    accountId: row.account_id,
    method,
    charge: {
      kind: 'card',
      card: parsed.value.card,
      installments: parsed.value.installments,
    },
    payerIdentifier: null,
    payerBank: null,
    payerIp,
    extended: row.extension !== null,
  });
}

/** A bank transfer from the checkout's form. */
async function bankAttempt(
  ctx: AppContext,
  reply: FastifyReply,
  { row, link, method, form, back }: Paying,
  payerIp: string,
): Promise<Attempted> {
  const banks = await banksFor(ctx, row.currency);
  const parsed = parseBankForm(form, payerRutOf(row), new Set(banks.map((b) => b.code)));
  if (!parsed.ok)
    return {
      sent: await renderForm(
        ctx,
        reply,
        422,
        row,
        link,
        method,
        parsed.problems,
        back,
        form.bank ?? null,
      ),
    };
  const bankName = banks.find((b) => b.code === parsed.value.bank)?.name ?? null;
  return attemptPayment(ctx, {
    transactionId: row.id,
    accountId: row.account_id,
    method,
    charge: {
      kind: 'bank_transfer',
      rut: parsed.value.rut,
      password: parsed.value.password,
      bankCode: parsed.value.bank,
    },
    payerIdentifier: parsed.value.rut,
    payerBank: bankName,
    payerIp,
    extended: row.extension !== null,
  });
}

function register(r: CheckoutRouter, ctx: AppContext): void {
  const show = (
    reply: FastifyReply,
    row: TransactionRow,
    link: LinkParams,
    chosen: number | undefined,
  ) => showTransaction(ctx, reply, row, link, chosen);

  async function authorised(id: string, valid: string): Promise<TransactionRow | null> {
    if (!(await checkoutTokenValid(ctx, id, valid))) return null;
    return (await loadForCheckout(ctx, id)) ?? null;
  }

  r.get(
    '/gateway/cobro',
    { config: { auth: 'none' }, schema: { hide: true, querystring: LinkQuery } },
    async (request, reply) => {
      const { id, valid, method } = request.query;
      const row = await authorised(id, valid);
      if (row === null) return sendPage(reply, 404, invalidLinkPage());
      return show(reply, row, { id, valid }, method);
    },
  );

  r.post(
    '/gateway/cobro',
    {
      config: { auth: 'none' },
      bodyLimit: limits.checkoutFormBytesMax,
      schema: { hide: true, body: PayForm },
    },
    async (request, reply) => {
      const form = request.body;
      const link = { id: form.id, valid: form.valid };
      const row = await authorised(form.id, form.valid);
      if (row === null) return sendPage(reply, 404, invalidLinkPage());
      if (row.status !== 'pending') return show(reply, row, link, undefined);
      const methods = await offeredMethods(ctx, row.currency, row.account_id);
      const fixed = fixedMethod(row, methods);
      const method = methods.find(
        (m) => m.payment === form.method && (fixed === null || fixed.payment === m.payment),
      );
      if (method === undefined) return show(reply, row, link, undefined);
      const paying: Paying = { row, link, method, form, back: fixed === null };
      const processor = await processorForMethod(ctx, row.account_id, method.kind);
      const outcome =
        processor?.redirect !== undefined && processor !== null
          ? await startAtAcquirer(ctx, request.log, reply, paying, processor)
          : method.kind === 'card'
            ? await cardAttempt(ctx, reply, paying, request.ip)
            : await bankAttempt(ctx, reply, paying, request.ip);
      if ('sent' in outcome) return outcome.sent;
      return answerOutcome(
        ctx,
        reply,
        row,
        link,
        method,
        fixed === null,
        outcome,
        form.bank ?? null,
      );
    },
  );
  registerAcquirerReturn(r, ctx);
  registerFintocReturn(r, ctx);
}

export const transactionPages: CheckoutPageKind = { kind: 'transaction', register };

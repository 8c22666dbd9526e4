// The transaction's checkout pages at /gateway/cobro?id=trx…&valid=… (reference §0.1): choose a method, fill the
// card or bank form, see the result. One page kind of the checkout (page-kinds.ts).
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { limits } from '../limits.ts';
import { accountNow } from '../platform/sandbox-clock.ts';
import { formatDate } from '../platform/time-format.ts';
import { checkoutTokenValid } from '../modules/transactions/checkout-link.ts';
import { attemptPayment } from '../modules/transactions/payment-attempt.ts';
import { normaliseRut, formatRut } from '../platform/rut.ts';
import type { TransactionRow } from '../modules/transactions/repository.ts';
import { sendPage } from './html.ts';
import { bankPage, cardPage, invalidLinkPage, methodsPage, resultPage, type LinkParams, type MethodOption } from './pages.ts';
import { banksFor, expiredReturnUrl, fixedMethod, loadForCheckout, markOpened, offeredMethods, orderSummary, receiptOf } from './checkout-service.ts';
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
  card_number: field, expiry: field, cvv: field, installments: field, rut: field, password: field, bank: field,
});

function payerRutOf(row: TransactionRow): string | null {
  const v = row.additional_parameters?.payer_rut;
  return v === undefined ? null : normaliseRut(String(v));
}

/** Shown under a decline the payer may still retry (limits.ts `paymentAttemptsMax`). */
export function retryNotice(attemptsLeft: number): string {
  return `Puedes intentarlo de nuevo: te ${attemptsLeft === 1 ? 'queda 1 intento' : `quedan ${attemptsLeft} intentos`}.`;
}

function register(r: CheckoutRouter, ctx: AppContext): void {
  /** Shows whatever the transaction's state calls for; `problems` re-renders a form with messages. */
  async function show(reply: FastifyReply, row: TransactionRow, link: LinkParams, chosen: number | undefined): Promise<FastifyReply> {
    const summary = await orderSummary(ctx, row);
    if (row.status === 'rejected' && row.rejection_reason === 'expired') {
      if (row.urlreturn !== null) return reply.code(303).header('location', expiredReturnUrl(row.urlreturn, row.id)).send();
      return sendPage(reply, 200, resultPage(summary, 'expired', null, null, link));
    }
    if (row.status !== 'pending') {
      const kind = row.status === 'rejected' ? 'rejected' : 'success';
      return sendPage(reply, 200, resultPage(summary, kind, row.status === 'rejected' ? row.gateway_message : null, row.urlreturn, link, await receiptOf(ctx, row)));
    }
    if (row.attempt_lease_until !== null && row.attempt_lease_until.getTime() > (await accountNow(ctx, row.account_id)).getTime()) {
      return sendPage(reply, 200, resultPage(summary, 'processing', null, null, link));
    }
    await markOpened(ctx, row);
    const methods = await offeredMethods(ctx, row.currency);
    const fixed = fixedMethod(row, methods);
    const method = fixed ?? methods.find((m) => m.payment === chosen) ?? null;
    if (method === null) {
      const notice = row.payment !== null && row.payment !== 99 ? 'El medio de pago solicitado no está disponible; elige otro.' : null;
      return sendPage(reply, 200, methodsPage(summary, link, methods, notice));
    }
    return renderForm(reply, 200, row, link, method, [], fixed === null);
  }

  async function renderForm(reply: FastifyReply, status: number, row: TransactionRow, link: LinkParams, method: MethodOption, problems: readonly string[], back: boolean, bank: string | null = null) {
    const summary = await orderSummary(ctx, row);
    if (method.kind === 'card') return sendPage(reply, status, cardPage(summary, link, method, problems, back));
    const fixedRut = payerRutOf(row);
    const preselected = bank ?? (row.additional_parameters?.payer_bank === undefined ? null : String(row.additional_parameters.payer_bank));
    return sendPage(reply, status, bankPage(summary, link, method, await banksFor(ctx, row.currency), {
      problems, rut: fixedRut === null ? '' : formatRut(fixedRut), rutFixed: fixedRut !== null, bank: preselected, back,
    }));
  }

  async function authorised(id: string, valid: string): Promise<TransactionRow | null> {
    if (!(await checkoutTokenValid(ctx, id, valid))) return null;
    return (await loadForCheckout(ctx, id)) ?? null;
  }

  r.get('/gateway/cobro', { config: { auth: 'none' }, schema: { hide: true, querystring: LinkQuery } }, async (request, reply) => {
    const { id, valid, method } = request.query;
    const row = await authorised(id, valid);
    if (row === null) return sendPage(reply, 404, invalidLinkPage());
    return show(reply, row, { id, valid }, method);
  });

  r.post('/gateway/cobro', { config: { auth: 'none' }, bodyLimit: limits.checkoutFormBytesMax, schema: { hide: true, body: PayForm } }, async (request, reply) => {
    const form = request.body;
    const link = { id: form.id, valid: form.valid };
    const row = await authorised(form.id, form.valid);
    if (row === null) return sendPage(reply, 404, invalidLinkPage());
    if (row.status !== 'pending') return show(reply, row, link, undefined);
    const methods = await offeredMethods(ctx, row.currency);
    const fixed = fixedMethod(row, methods);
    const method = methods.find((m) => m.payment === form.method && (fixed === null || fixed.payment === m.payment));
    if (method === undefined) return show(reply, row, link, undefined);
    let outcome;
    if (method.kind === 'card') {
      const month = formatDate(await accountNow(ctx, row.account_id), ctx.config.timeZone).slice(0, 7);
      const parsed = parseCardForm(form, method.payment, month);
      if (!parsed.ok) return renderForm(reply, 422, row, link, method, parsed.problems, fixed === null);
      outcome = await attemptPayment(ctx, {
        transactionId: row.id, method,
        charge: { kind: 'card', card: parsed.value.card, installments: parsed.value.installments },
        payerIdentifier: null, payerBank: null, payerIp: request.ip,
      });
    } else {
      const banks = await banksFor(ctx, row.currency);
      const parsed = parseBankForm(form, payerRutOf(row), new Set(banks.map((b) => b.code)));
      if (!parsed.ok) return renderForm(reply, 422, row, link, method, parsed.problems, fixed === null, form.bank ?? null);
      const bankName = banks.find((b) => b.code === parsed.value.bank)?.name ?? null;
      outcome = await attemptPayment(ctx, {
        transactionId: row.id, method,
        charge: { kind: 'bank_transfer', rut: parsed.value.rut, password: parsed.value.password, bankCode: parsed.value.bank },
        payerIdentifier: parsed.value.rut, payerBank: bankName, payerIp: request.ip,
      });
    }
    const summary = await orderSummary(ctx, row);
    switch (outcome.kind) {
      case 'approved': {
        const paid = await loadForCheckout(ctx, row.id);
        return sendPage(reply, 200, resultPage(summary, 'success', null, row.urlreturn, link, paid === undefined ? null : await receiptOf(ctx, paid)));
      }
      case 'declined':
        if (outcome.attemptsLeft > 0) {
          // The transaction is still pending: the same form again, with what went wrong and the tries left.
          return renderForm(reply, 200, row, link, method, [outcome.payerMessage, retryNotice(outcome.attemptsLeft)], fixed === null, form.bank ?? null);
        }
        return sendPage(reply, 200, resultPage(summary, 'rejected', outcome.payerMessage, row.urlreturn, link));
      case 'in_progress':
        return sendPage(reply, 200, resultPage(summary, 'processing', null, null, link));
      case 'expired':
      case 'final': {
        const fresh = await loadForCheckout(ctx, row.id);
        return fresh === undefined ? sendPage(reply, 404, invalidLinkPage()) : show(reply, fresh, link, undefined);
      }
      default: {
        const never: never = outcome;
        return never;
      }
    }
  });
}

export const transactionPages: CheckoutPageKind = { kind: 'transaction', register };

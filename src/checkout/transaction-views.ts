// What the transaction's checkout shows for its state, and for the outcome of a payment attempt: shared by the
// pages at /gateway/cobro (transaction-pages.ts) and the acquirer's return (acquirer-return.ts).
import { fintocProcessorFor } from '../platform/processors/fintoc-selection.ts';
import { fintocCopy } from './fintoc-pages.ts';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { normaliseRut, formatRut } from '../platform/ids/rut.ts';
import {
  hasUndecidedSession,
  processorForAccount,
} from '../platform/processors/account-processors.ts';
import type { AttemptOutcome } from '../modules/transactions/attempt-outcome.ts';
import type { TransactionRow } from '../modules/transactions/repository.ts';
import { sendPage } from './html.ts';
import { formProblems, type FormProblem } from './form-problems.ts';
import {
  bankPage,
  cardPage,
  invalidLinkPage,
  methodsPage,
  redirectMethodPage,
  refundedText,
  webpayCopy,
  payerReason,
  resultPage,
  type LinkParams,
  type MethodOption,
} from './pages.ts';
import {
  banksFor,
  expiredReturnUrl,
  fixedMethod,
  loadForCheckout,
  markOpened,
  offeredMethods,
  orderSummary,
  receiptOf,
} from './checkout-service.ts';

export function payerRutOf(row: TransactionRow): string | null {
  const v = row.additional_parameters?.payer_rut;
  return v === undefined ? null : normaliseRut(String(v));
}

/** Shown under a decline the payer may still retry (src/limits/modules.ts `paymentAttemptsMax`). */
function retryNotice(attemptsLeft: number): string {
  return `Puedes intentarlo de nuevo: te ${attemptsLeft === 1 ? 'queda 1 intento' : `quedan ${attemptsLeft} intentos`}.`;
}

/**
 * What a payer reopening the link of a sale the merchant refunded reads under the receipt: a full refund is no
 * longer "Pago exitoso" (decision 1050), and both say how much was given back and, when in part, what stays
 * charged (decision 1075). `refunded_minor` is the refunds registered on the sale (never more than its amount).
 */
function refundNotice(row: TransactionRow): string | null {
  if (row.status !== 'refunded' && row.status !== 'refunded partial') return null;
  const refundedMinor = BigInt(row.refunded_minor);
  return row.status === 'refunded'
    ? `El comercio anuló este pago y devolvió el monto completo al medio de pago. ${refundedText(refundedMinor, null, row.currency)}`
    : `El comercio devolvió parte de este pago al medio de pago. ${refundedText(refundedMinor, BigInt(row.amount_minor) - refundedMinor, row.currency)}`;
}

/** Shows whatever the transaction's state calls for. */
export async function showTransaction(
  ctx: AppContext,
  reply: FastifyReply,
  row: TransactionRow,
  link: LinkParams,
  chosen: number | undefined,
): Promise<FastifyReply> {
  const summary = await orderSummary(ctx, row);
  if (row.status === 'rejected' && row.rejection_reason === 'expired') {
    if (row.urlreturn !== null)
      return reply.code(303).header('location', expiredReturnUrl(row.urlreturn, row.id)).send();
    return sendPage(reply, 200, resultPage(summary, 'expired', null, null, link));
  }
  if (row.status !== 'pending') {
    const kind =
      row.status === 'rejected' ? 'rejected' : row.status === 'refunded' ? 'refunded' : 'success';
    return sendPage(
      reply,
      200,
      resultPage(
        summary,
        kind,
        row.status === 'rejected' ? payerReason(row.gateway_message) : refundNotice(row),
        row.urlreturn,
        link,
        await receiptOf(ctx, row),
      ),
    );
  }
  // An attempt's lease is on the service clock (decision 760).
  const leased =
    row.attempt_lease_until !== null &&
    row.attempt_lease_until.getTime() > ctx.clock.now().getTime();
  if (leased || (ctx.config.mode === 'production' && (await hasUndecidedSession(ctx.db, row.id)))) {
    return sendPage(reply, 200, resultPage(summary, 'processing', null, null, link));
  }
  await markOpened(ctx, row);
  const methods = await offeredMethods(ctx, row.currency, row.account_id);
  const fixed = fixedMethod(row, methods);
  const method = fixed ?? methods.find((m) => m.payment === chosen) ?? null;
  if (method === null) {
    const notice =
      row.payment !== null && row.payment !== 99
        ? 'El medio de pago solicitado no está disponible; elige otro.'
        : null;
    // With nothing to offer, the payer is not stranded: a way back to the merchant.
    return sendPage(
      reply,
      200,
      methodsPage(summary, link, methods, notice, methods.length === 0 ? row.urlreturn : null),
    );
  }
  return renderForm(ctx, reply, 200, row, link, method, [], fixed === null);
}

/** The method's form (card, bank login, or the button to the acquirer's page), with `problems` on top. */
export async function renderForm(
  ctx: AppContext,
  reply: FastifyReply,
  status: number,
  row: TransactionRow,
  link: LinkParams,
  method: MethodOption,
  problems: readonly FormProblem[],
  back: boolean,
  bank: string | null = null,
): Promise<FastifyReply> {
  const summary = await orderSummary(ctx, row);
  if (method.kind === 'bank_transfer' && (await fintocProcessorFor(ctx, row.account_id)) !== null)
    return sendPage(
      reply,
      status,
      redirectMethodPage(summary, link, method, problems, back, fintocCopy),
    );
  if (method.kind === 'card') {
    const redirect = (await processorForAccount(ctx, row.account_id)).redirect !== undefined;
    return sendPage(
      reply,
      status,
      redirect
        ? redirectMethodPage(summary, link, method, problems, back, webpayCopy)
        : cardPage(summary, link, method, problems, back),
    );
  }
  const fixedRut = payerRutOf(row);
  const preselected =
    bank ??
    (row.additional_parameters?.payer_bank === undefined
      ? null
      : String(row.additional_parameters.payer_bank));
  return sendPage(
    reply,
    status,
    bankPage(summary, link, method, await banksFor(ctx, row.currency), {
      problems,
      rut: fixedRut === null ? '' : formatRut(fixedRut),
      rutFixed: fixedRut !== null,
      bank: preselected,
      back,
    }),
  );
}

/** The page after an attempt: the result, the same form again for a decline the payer may retry, or the state. */
export async function answerOutcome(
  ctx: AppContext,
  reply: FastifyReply,
  row: TransactionRow,
  link: LinkParams,
  method: MethodOption,
  back: boolean,
  outcome: AttemptOutcome,
  bank: string | null = null,
): Promise<FastifyReply> {
  const summary = await orderSummary(ctx, row);
  switch (outcome.kind) {
    case 'approved':
      return sendPage(
        reply,
        200,
        resultPage(
          summary,
          'success',
          null,
          row.urlreturn,
          link,
          await receiptOf(ctx, outcome.paid),
        ),
      );
    case 'declined':
      if (outcome.attemptsLeft > 0) {
        // The transaction is still pending: the same form again, with what went wrong and the tries left.
        return renderForm(
          ctx,
          reply,
          200,
          row,
          link,
          method,
          formProblems(outcome.payerMessage, retryNotice(outcome.attemptsLeft)),
          back,
          bank,
        );
      }
      return sendPage(
        reply,
        200,
        resultPage(summary, 'rejected', outcome.payerMessage, row.urlreturn, link),
      );
    case 'in_progress':
      return sendPage(reply, 200, resultPage(summary, 'processing', null, null, link));
    case 'expired':
    case 'final': {
      const fresh = await loadForCheckout(ctx, row.id);
      return fresh === undefined
        ? sendPage(reply, 404, invalidLinkPage())
        : showTransaction(ctx, reply, fresh, link, undefined);
    }
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

// The page a payer lands on back from an acquirer's own page (Webpay's return_url, Fintoc's success or cancel url):
// the outcome drawn with the sale's method, whose form shows again when a decline leaves tries.
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import type { AttemptOutcome } from '../modules/transactions/attempt-outcome.ts';
import { checkoutToken } from '../modules/transactions/checkout-link.ts';
import { fixedMethod, loadForCheckout, offeredMethods } from './checkout-service.ts';
import { sendPage } from './html.ts';
import { invalidLinkPage, type MethodOption } from './pages.ts';
import { answerOutcome } from './transaction-views.ts';

export interface ReturnedPayment {
  /** null when the acquirer's reference names no payment of ours. */
  readonly transactionId: string | null;
  readonly outcome: AttemptOutcome;
}

/** `viaKind`: the kind of method the acquirer pays, the one shown when the sale names none it offers. */
export async function answerReturn(
  ctx: AppContext,
  reply: FastifyReply,
  result: ReturnedPayment | null,
  viaKind: MethodOption['kind'],
): Promise<FastifyReply> {
  const transactionId = result?.transactionId ?? null;
  const row = transactionId === null ? undefined : await loadForCheckout(ctx, transactionId);
  if (result === null || row === undefined) return sendPage(reply, 404, invalidLinkPage());
  const link = { id: row.id, valid: await checkoutToken(ctx, row.id) };
  const methods = await offeredMethods(ctx, row.currency, row.account_id);
  const fixed = fixedMethod(row, methods);
  const method =
    fixed ??
    methods.find((m) => m.payment === row.paid_payment) ??
    methods.find((m) => m.kind === viaKind);
  if (method === undefined) return sendPage(reply, 404, invalidLinkPage());
  return answerOutcome(ctx, reply, row, link, method, fixed === null, result.outcome);
}

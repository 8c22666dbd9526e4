// Where Fintoc sends the payer back: `?attempt=ID` (success_url) or `?attempt=ID&cancelled=1` (cancel_url). The
// webhook is what settles a sale; the return only asks Fintoc for the session when the webhook has not come yet:
// paid or failed, it records that (once, as the webhook would); cancelled, it expires the session at Fintoc first,
// so it cannot be paid afterwards, and the attempt is declined (the payer may try again); otherwise the payer sees
// "Estamos procesando tu pago". A reload finds the session decided and records nothing twice.
import { Type } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { transactionLimits } from '../limits/index.ts';
import { fintocAccount } from '../platform/processors/fintoc-settings.ts';
import { declined, sessionStatus } from '../platform/processors/fintoc-processor.ts';
import { fintocReturnPath } from '../platform/processors/fintoc-selection.ts';
import { fintocSession, settleFintocSession } from '../modules/fintoc/sale-settle.ts';
import type { AttemptOutcome } from '../modules/transactions/attempt-outcome.ts';
import type { FastifyReply } from 'fastify';
import { checkoutToken } from '../modules/transactions/checkout-link.ts';
import { fixedMethod, loadForCheckout, offeredMethods } from './checkout-service.ts';
import { sendPage } from './html.ts';
import { invalidLinkPage } from './pages.ts';
import { answerOutcome } from './transaction-views.ts';
import type { CheckoutRouter } from './page-kinds.ts';

const Query = Type.Object({
  attempt: Type.String({ maxLength: transactionLimits.acquirer.tokenLengthMax }),
  cancelled: Type.Optional(Type.String({ maxLength: 1 })),
});

async function decide(
  ctx: AppContext,
  attemptId: string,
  cancelled: boolean,
  ip: string,
): Promise<{ transactionId: string | null; outcome: AttemptOutcome }> {
  const session = await fintocSession(ctx, { attemptId });
  if (session === undefined)
    return { transactionId: null, outcome: { kind: 'final', status: 'rejected' } };
  const inProgress = {
    transactionId: session.transaction_id,
    outcome: { kind: 'in_progress' },
  } as const;
  if (session.state !== 'redirected')
    return {
      transactionId: session.transaction_id,
      outcome: await settleFintocSession(ctx, session, declined('failed'), ip),
    };
  const account = await fintocAccount(ctx, ctx.db, session.account_id);
  if (account === null) return inProgress;
  try {
    const status = sessionStatus(await account.api.getCheckoutSession(session.token));
    if (status.state !== 'open')
      return {
        transactionId: session.transaction_id,
        outcome: await settleFintocSession(ctx, session, status.outcome, ip),
      };
    if (!cancelled) return inProgress;
    const after = sessionStatus(await account.api.expireCheckoutSession(session.token));
    const outcome = after.state === 'approved' ? after.outcome : declined('cancelled');
    return {
      transactionId: session.transaction_id,
      outcome: await settleFintocSession(ctx, session, outcome, ip, !outcome.approved),
    };
  } catch (error) {
    ctx.logger.warn({ err: error, attempt: attemptId }, 'Fintoc session unreadable at the return');
    return inProgress;
  }
}

/** The page for the outcome, with the sale's bank-transfer method (its form again for a decline with tries left). */
async function answer(
  ctx: AppContext,
  reply: FastifyReply,
  result: { transactionId: string | null; outcome: AttemptOutcome },
): Promise<FastifyReply> {
  const row =
    result.transactionId === null ? undefined : await loadForCheckout(ctx, result.transactionId);
  if (row === undefined) return sendPage(reply, 404, invalidLinkPage());
  const link = { id: row.id, valid: await checkoutToken(ctx, row.id) };
  const methods = await offeredMethods(ctx, row.currency, row.account_id);
  const fixed = fixedMethod(row, methods);
  const method =
    fixed ??
    methods.find((m) => m.payment === row.paid_payment) ??
    methods.find((m) => m.kind === 'bank_transfer');
  if (method === undefined) return sendPage(reply, 404, invalidLinkPage());
  return answerOutcome(ctx, reply, row, link, method, fixed === null, result.outcome);
}

export function registerFintocReturn(r: CheckoutRouter, ctx: AppContext): void {
  r.get(
    fintocReturnPath,
    { config: { auth: 'none' }, schema: { hide: true, querystring: Query } },
    async (request, reply) => {
      const { attempt, cancelled } = request.query;
      return answer(ctx, reply, await decide(ctx, attempt, cancelled === '1', request.ip));
    },
  );
}

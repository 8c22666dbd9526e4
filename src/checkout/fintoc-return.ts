// Where Fintoc sends the payer back: `?attempt=ID` (success_url) or `?attempt=ID&cancelled=1` (cancel_url). The
// webhook is what settles a sale; the return only asks Fintoc for the session when the webhook has not come yet:
// paid or failed, it records that (once, as the webhook would); cancelled, it expires the session at Fintoc first,
// so it cannot be paid afterwards, and the attempt is declined (the payer may try again); otherwise (a payment the
// bank has not confirmed included, decision 745) the payer sees "Estamos procesando tu pago". A reload finds the session decided and records nothing twice.
import { Type } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { transactionLimits } from '../limits/index.ts';
import { fintocAccount } from '../platform/processors/fintoc-settings.ts';
import { declined, intentPending, sessionStatus } from '../platform/processors/fintoc-processor.ts';
import { fintocReturnPath } from '../platform/processors/fintoc-selection.ts';
import { fintocSession, settleFintocSession } from '../modules/fintoc/sale-settle.ts';
import type { CheckoutRouter } from './page-kinds.ts';
import { answerReturn, type ReturnedPayment } from './return-answer.ts';

const Query = Type.Object({
  attempt: Type.String({ maxLength: transactionLimits.acquirer.tokenLengthMax }),
  cancelled: Type.Optional(Type.String({ maxLength: 1 })),
});

async function decide(
  ctx: AppContext,
  attemptId: string,
  cancelled: boolean,
  ip: string,
): Promise<ReturnedPayment> {
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
      outcome: await settleFintocSession(ctx, session, declined('failed'), null, ip),
    };
  const account = await fintocAccount(ctx, ctx.db, session.account_id);
  if (account === null) return inProgress;
  try {
    const read = await account.api.getCheckoutSession(session.token);
    const status = sessionStatus(read);
    if (status.state !== 'open')
      return {
        transactionId: session.transaction_id,
        outcome: await settleFintocSession(ctx, session, status.outcome, read, ip),
      };
    // A payment the bank has not confirmed is never cancelled from here (decision 745): Fintoc decides it.
    if (!cancelled || intentPending(read)) return inProgress;
    const expired = await account.api.expireCheckoutSession(session.token);
    const after = sessionStatus(expired);
    const outcome = after.state === 'approved' ? after.outcome : declined('cancelled');
    return {
      transactionId: session.transaction_id,
      outcome: await settleFintocSession(ctx, session, outcome, expired, ip, !outcome.approved),
    };
  } catch (error) {
    ctx.logger.warn({ err: error, attempt: attemptId }, 'Fintoc session unreadable at the return');
    return inProgress;
  }
}

export function registerFintocReturn(r: CheckoutRouter, ctx: AppContext): void {
  r.get(
    fintocReturnPath,
    { config: { auth: 'none' }, schema: { hide: true, querystring: Query } },
    async (request, reply) => {
      const { attempt, cancelled } = request.query;
      return answerReturn(
        ctx,
        reply,
        await decide(ctx, attempt, cancelled === '1', request.ip),
        'bank_transfer',
      );
    },
  );
}

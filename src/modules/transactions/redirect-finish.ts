// The payer is back from the acquirer's page with `token_ws` (redirect-start.ts tells the whole trip): mark the
// session `committing` and renew the lease, commit outside any database transaction, and record the outcome.
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { ChargeOutcome } from '../../platform/processors/processor.ts';
import { processorForAccount } from '../../platform/processors/account-processors.ts';
import {
  decidedByStatus,
  holdForCommit,
  lockLiveSession,
  methodOf,
  recordSession,
  type ReturnResult,
} from './redirect-session.ts';

/** The payer is back with `token_ws`: commit once, ask the status if the answer is lost, then record. */
export async function finishRedirectPayment(
  ctx: AppContext,
  token: string,
  payerIp: string | null,
): Promise<ReturnResult> {
  const begun = await inTransaction(ctx.db, async (tx) => {
    const locked = await lockLiveSession(tx, { token });
    if (locked === undefined) return { kind: 'unknown' } as const;
    const { session, row } = locked;
    if (!locked.live) {
      // A reload of the return page, or the attempt lost its hold: never commit (an uncommitted Webpay payment is
      // reversed by Transbank), show what the transaction says.
      return {
        kind: 'done',
        session,
        status: row.status,
        committing: session.state === 'committing',
      } as const;
    }
    await holdForCommit(tx, session, await ctx.accountClock.now(row.account_id, tx));
    return { kind: 'commit', session, method: await methodOf(tx, session, row.payment) } as const;
  });
  if (begun.kind === 'unknown')
    return { transactionId: null, outcome: { kind: 'final', status: 'rejected' } };
  if (begun.kind === 'done') {
    return {
      transactionId: begun.session.transaction_id,
      outcome: begun.committing ? { kind: 'in_progress' } : { kind: 'final', status: begun.status },
    };
  }
  const processor = await processorForAccount(ctx, begun.session.account_id);
  let outcome: ChargeOutcome | null;
  try {
    outcome = await processor.redirect!.commit(token);
  } catch (error) {
    ctx.logger.warn(
      { err: error, attempt: begun.session.attempt_id },
      'commit answer lost: asking the acquirer for the status',
    );
    outcome = await decidedByStatus(ctx, processor, token);
  }
  if (outcome === null)
    return { transactionId: begun.session.transaction_id, outcome: { kind: 'in_progress' } };
  return {
    transactionId: begun.session.transaction_id,
    outcome: await recordSession(ctx, begun.session, begun.method, outcome, payerIp),
  };
}

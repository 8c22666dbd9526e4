// The payer is back from the acquirer's page with `token_ws` (redirect-start.ts tells the whole trip): mark the
// session `committing` and renew the lease, commit outside any database transaction, and record the outcome.
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { ChargeOutcome } from '../../platform/processors/processor.ts';
import { processorForAccount } from '../../platform/processors/account-processors.ts';
import { isExpired } from './attempt-claim.ts';
import { expiryRejection, recordRejection } from './transaction-result.ts';
import {
  abandonSession,
  decidedByStatus,
  holdForCommit,
  lockLiveSession,
  methodOf,
  recordSession,
  saleOf,
  type ReturnResult,
} from './redirect-session.ts';

/**
 * The session's state before the commit, in one transaction: unknown token, already decided (a reload), expired
 * (its hold and the sale's expiry both passed), or held for the commit.
 */
async function beginCommit(ctx: AppContext, token: string) {
  return inTransaction(ctx.db, async (tx) => {
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
    const now = await ctx.accountClock.now(row.account_id, tx);
    if (isExpired(row, now, ctx.clock.now())) {
      // The hold ran out and the sale's expiry passed before the payer came back: it is expired now, as a page view
      // would find it, whether or not the expiry due work ran (decision 655). Never committed, Transbank reverses
      // the payment.
      await abandonSession(tx, session, now);
      await recordRejection(tx, row, expiryRejection, now);
      return { kind: 'expired', session } as const;
    }
    // The session's time and the attempt's lease are on the service clock, as the recovery's (decision 760).
    await holdForCommit(tx, session, ctx.clock.now());
    return {
      kind: 'commit',
      session,
      sale: saleOf(session, row.amount_minor),
      method: await methodOf(tx, session, row.payment),
    } as const;
  });
}

/** The payer is back with `token_ws`: commit once, ask the status if the answer is lost, then record. */
export async function finishRedirectPayment(
  ctx: AppContext,
  token: string,
  payerIp: string | null,
): Promise<ReturnResult> {
  const begun = await beginCommit(ctx, token);
  if (begun.kind === 'expired')
    return { transactionId: begun.session.transaction_id, outcome: { kind: 'expired' } };
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
    outcome = await processor.redirect!.commit(token, begun.sale);
  } catch (error) {
    ctx.logger.warn(
      { err: error, attempt: begun.session.attempt_id },
      'commit answer lost: asking the acquirer for the status',
    );
    outcome = await decidedByStatus(ctx, processor, token, begun.sale, 'right_after_commit');
  }
  if (outcome === null)
    return { transactionId: begun.session.transaction_id, outcome: { kind: 'in_progress' } };
  try {
    return {
      transactionId: begun.session.transaction_id,
      outcome: await recordSession(ctx, begun.session, begun.method, outcome, payerIp),
    };
  } catch (error) {
    // The acquirer decided (the card may be charged) and the session stays `committing`, so the recovery due work
    // records it (decision 150): the payer is told the payment is being processed, never that nothing was charged
    // (decision 655).
    ctx.logger.error(
      { err: error, attempt: begun.session.attempt_id },
      "recording a committed payment failed: the recovery records it; the payer sees 'processing'",
    );
    return { transactionId: begun.session.transaction_id, outcome: { kind: 'in_progress' } };
  }
}

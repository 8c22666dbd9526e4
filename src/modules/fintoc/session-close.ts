// The `fintoc-session-close` due work (decision 665). Fintoc keeps a checkout session payable for a day, Cobro holds
// the sale for a payer 10 minutes (transactionLimits.acquirer.redirectLeaseMs), and the open session holds the sale
// against a new attempt and its expiry (isUndecidedSession). Once the hold runs out, this asks Fintoc how the session
// ended: paid or failed, that is recorded; still open, it is expired at Fintoc first (Fintoc answers with the
// session as it then is, paid if the payer was quicker), so no payment of it can come after the sale moved on.
// Fintoc refusing (a payer authorising at the bank: `in_progress`) or silent leaves the session to be asked again.
// A payment the bank has not confirmed (its intent `pending`, decision 745) is not expired: it stays open, asked about
// every fintocLimits.intentPendingRecheckMs until Fintoc decides it, within a bound (pending-payment.ts).
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { fintocAccount } from '../../platform/processors/fintoc-settings.ts';
import {
  fintocProcessorName,
  intentPending,
  sessionStatus,
} from '../../platform/processors/fintoc-processor.ts';
import type { RedirectStatus } from '../../platform/processors/processor.ts';
import { fintocLimits } from '../../limits/index.ts';
import { settleFintocSession, type FintocSession } from './sale-settle.ts';
import { stillPending } from './pending-payment.ts';

/**
 * One open Fintoc session whose hold on its sale ran out (or whose sale moved on), held against other workers for
 * a recheck period by moving its updated_at, with SKIP LOCKED; undefined when there is none.
 */
async function claimLapsed(
  ctx: AppContext,
  scope: DueWorkScope,
): Promise<FintocSession | undefined> {
  return inTransaction(ctx.db, async (tx) => {
    const now = ctx.clock.now();
    let q = tx
      .selectFrom('processor_sessions as s')
      .innerJoin('transactions as t', 't.id', 's.transaction_id')
      .selectAll('s')
      .where('s.state', '=', 'redirected')
      .where('s.processor', '=', fintocProcessorName)
      .where('s.updated_at', '<=', new Date(now.getTime() - fintocLimits.sessionRecheckMs))
      .where((eb) =>
        eb.or([
          eb('s.pending_since', 'is', null),
          eb('s.updated_at', '<=', new Date(now.getTime() - fintocLimits.intentPendingRecheckMs)),
        ]),
      )
      .where((eb) =>
        eb.or([
          eb('t.status', '!=', 'pending'),
          eb('t.attempt_id', 'is distinct from', eb.ref('s.attempt_id')),
          eb('t.attempt_lease_until', 'is', null),
          eb('t.attempt_lease_until', '<=', now),
        ]),
      );
    if (scope.accountId !== undefined) q = q.where('s.account_id', '=', scope.accountId);
    const session = await q
      .orderBy('s.updated_at')
      .limit(1)
      .forUpdate('s')
      .skipLocked()
      .executeTakeFirst();
    if (session === undefined) return undefined;
    await tx
      .updateTable('processor_sessions')
      .set({ updated_at: now })
      .where('attempt_id', '=', session.attempt_id)
      .execute();
    return session;
  });
}

/**
 * How the session ended at Fintoc, expiring it there when it is still open; 'pending' when the payer finished and
 * Fintoc has not decided the payment (never expired); null when Fintoc did not say.
 */
async function endAtFintoc(
  ctx: AppContext,
  session: FintocSession,
): Promise<{ status: RedirectStatus; read: Record<string, unknown> } | 'pending' | null> {
  const account = await fintocAccount(ctx, ctx.db, session.account_id);
  if (account === null) return null;
  try {
    const read = await account.api.getCheckoutSession(session.token);
    if (intentPending(read)) return 'pending';
    const status = sessionStatus(read);
    if (status.state !== 'open') return { status, read };
    const expired = await account.api.expireCheckoutSession(session.token);
    return { status: sessionStatus(expired), read: expired };
  } catch (error) {
    ctx.logger.warn(
      { err: error, attempt: session.attempt_id },
      'Fintoc session not closed: asked again later',
    );
    return null;
  }
}

export async function closeLapsedFintocSessions(
  ctx: AppContext,
  scope: DueWorkScope,
): Promise<number> {
  let processed = 0;
  while (processed < scope.limit) {
    const session = await claimLapsed(ctx, scope);
    if (session === undefined) break;
    const ended = await endAtFintoc(ctx, session);
    if (ended === 'pending') await stillPending(ctx, session);
    else if (ended !== null && ended.status.state !== 'open')
      await settleFintocSession(ctx, session, ended.status.outcome, ended.read, null);
    processed++;
  }
  return processed;
}

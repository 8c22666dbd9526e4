// The `fintoc-late-claim-recover` due work (decision 1215). A late Fintoc success (decision 1055) claims its sale and
// then records it; a process stopped between the two leaves the sale held by the late attempt (`lateAttemptId`), its
// session `declined`, and Fintoc holding the payer's money. Fintoc's next delivery of the event finishes it (decision
// 1080), but when none comes the lease runs out, the sale is payable again and only reconcile reports the money.
// This finds such a sale once the dead attempt's lease ran out (a pending sale held by that id is unrecorded: the
// record pays the sale in the same transaction), reads the payment intent from Fintoc, and, when Fintoc says
// `succeeded`, settles the session exactly as a redelivered `payment_intent.succeeded` does (settleFintocSession):
// the same claim under the same id, the same record, the same checks and messages. A redelivery at the same time is
// decided under the sale's row lock as two deliveries are (decision 1080).
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { fintocAccount } from '../../platform/processors/fintoc-settings.ts';
import { fintocProcessorName, intentApproval } from '../../platform/processors/fintoc-processor.ts';
import { fintocLimits } from '../../limits/index.ts';
import { settleFintocSession, type FintocSession } from './sale-settle.ts';
import { lateAttemptSeed } from './late-success.ts';

/**
 * One declined Fintoc session whose sale is still held by the session's late attempt, its lease run out within
 * fintocLimits.lateClaimAskMsMax; held against other workers for lateClaimRecheckMs by moving the session's
 * updated_at, with SKIP LOCKED. The late attempt's id is lateAttemptId's, computed here in SQL.
 */
async function claimDeadLate(
  ctx: AppContext,
  scope: DueWorkScope,
): Promise<FintocSession | undefined> {
  return inTransaction(ctx.db, async (tx) => {
    const now = ctx.clock.now();
    let q = tx
      .selectFrom('transactions as t')
      .innerJoin('processor_sessions as s', 's.transaction_id', 't.id')
      .selectAll('s')
      .where('t.status', '=', 'pending')
      .where('t.attempt_lease_until', '<=', now)
      .where('t.attempt_lease_until', '>', new Date(now.getTime() - fintocLimits.lateClaimAskMsMax))
      .where('s.processor', '=', fintocProcessorName)
      .where('s.state', '=', 'declined')
      .where('s.updated_at', '<=', new Date(now.getTime() - fintocLimits.lateClaimRecheckMs))
      .where(
        't.attempt_id',
        '=',
        sql<string>`'att' || left(encode(sha256(convert_to(${lateAttemptSeed} || s.attempt_id, 'UTF8')), 'hex'), 20)`,
      );
    if (scope.accountId !== undefined) q = q.where('s.account_id', '=', scope.accountId);
    const session = await q
      .orderBy('t.attempt_lease_until')
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

/** The session's payment intent as Fintoc reads now (the checkout session names it); null when Fintoc did not say. */
async function intentAtFintoc(
  ctx: AppContext,
  session: FintocSession,
): Promise<Record<string, unknown> | null> {
  const account = await fintocAccount(ctx, ctx.db, session.account_id);
  if (account === null) return null;
  try {
    const read = await account.api.getCheckoutSession(session.token);
    const resource = (read.payment_resource ?? {}) as Record<string, unknown>;
    const named = (resource.payment_intent ?? {}) as Record<string, unknown>;
    if (typeof named.id !== 'string') return null;
    return await account.api.getPaymentIntent(named.id);
  } catch (error) {
    ctx.logger.warn(
      { err: error, attempt: session.attempt_id },
      'Fintoc payment intent of a late success not read: asked again later',
    );
    return null;
  }
}

export async function recoverDeadLateClaims(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  let processed = 0;
  while (processed < scope.limit) {
    const session = await claimDeadLate(ctx, scope);
    if (session === undefined) break;
    const intent = await intentAtFintoc(ctx, session);
    if (intent !== null && intent.status === 'succeeded')
      await settleFintocSession(ctx, session, intentApproval(intent), intent, null);
    else
      ctx.logger.warn(
        {
          attempt: session.attempt_id,
          transaction: session.transaction_id,
          intent: intent === null ? null : String(intent.status),
        },
        'Fintoc late success held its sale and Fintoc does not say succeeded: asked again later',
      );
    processed++;
  }
  return processed;
}

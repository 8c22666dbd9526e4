// The `processor-commit-recovery` due work of redirect payments (redirect-start.ts tells the whole trip).
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { processorForAccount } from '../../platform/processors/account-processors.ts';
import { transactionLimits } from '../../limits/index.ts';
import {
  decidedByStatus,
  holdForCommit,
  methodOf,
  recordSession,
  saleOf,
} from './redirect-session.ts';

/**
 * Due work: sessions whose commit answer was lost and whose status could not be read then. Each is held for a
 * recheck period (its updated_at moves forward, claimed with SKIP LOCKED), its status read outside any
 * transaction, and the outcome recorded; the transaction's lease is renewed while the acquirer stays silent.
 */
export async function recoverLostCommits(
  ctx: AppContext,
  scope: { accountId?: string; limit: number },
): Promise<number> {
  let processed = 0;
  while (processed < scope.limit) {
    const claimed = await inTransaction(ctx.db, async (tx) => {
      const cutoff = new Date(
        ctx.clock.now().getTime() - transactionLimits.acquirer.commitRecheckMs,
      );
      let q = tx
        .selectFrom('processor_sessions')
        .selectAll()
        .where('state', '=', 'committing')
        .where('updated_at', '<=', cutoff);
      if (scope.accountId !== undefined) q = q.where('account_id', '=', scope.accountId);
      const session = await q
        .orderBy('updated_at')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (session === undefined) return undefined;
      await holdForCommit(tx, session, ctx.clock.now());
      const row = await tx
        .selectFrom('transactions')
        .select(['payment', 'amount_minor'])
        .where('id', '=', session.transaction_id)
        .executeTakeFirstOrThrow();
      return {
        session,
        sale: saleOf(session, row.amount_minor),
        method: await methodOf(tx, session, row.payment),
      };
    });
    if (claimed === undefined) break;
    const processor = await processorForAccount(ctx, claimed.session.account_id);
    const outcome = await decidedByStatus(
      ctx,
      processor,
      claimed.session.token,
      claimed.sale,
      'recheck',
    );
    if (outcome !== null) await recordSession(ctx, claimed.session, claimed.method, outcome, null);
    processed++;
  }
  return processed;
}

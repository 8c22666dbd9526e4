// `cobro notifications prune` (decision 994): the retention worker's batches run by hand, to a bound the operator
// names. Each batch commits on its own, so a large backlog holds no lock for long and a run cut short keeps what it
// deleted; the audit row (chain `service`) commits with the first batch that deletes anything.
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { operatorActor } from '../../platform/audit/actor.ts';
import { recordAudit, serviceChain } from '../../platform/audit/record.ts';
import {
  pruneCutoff,
  pruneFinalNotifications,
  reclaimPrunedSpace,
} from '../../platform/notifications/prune.ts';
import { limits } from '../../limits/index.ts';

export interface PruneRun {
  readonly before: Date;
  readonly notifications: number;
  readonly attempts: number;
  /** True when the run stopped at its batch bound with rows perhaps left. */
  readonly more: boolean;
}

export async function pruneNotificationsRun(ctx: AppContext, days: number): Promise<PruneRun> {
  const before = pruneCutoff(ctx.clock.now(), days);
  const batchMax = limits.notificationPruneBatchMax;
  let notifications = 0;
  let attempts = 0;
  for (let batch = 0; batch < limits.notificationPruneRunBatchesMax; batch++) {
    const pruned = await inTransaction(ctx.db, async (tx) => {
      const done = await pruneFinalNotifications(tx, before, batchMax);
      if (notifications === 0 && done.notifications > 0)
        await recordAudit(tx, {
          chain: serviceChain,
          actor: operatorActor,
          action: 'cobro notifications prune',
          target: `older-than-days:${days}`,
          requestId: null,
          at: ctx.clock.now(),
        });
      return done;
    });
    notifications += pruned.notifications;
    attempts += pruned.attempts;
    if (pruned.notifications < batchMax)
      return reclaimed(ctx, { before, notifications, attempts, more: false });
  }
  return reclaimed(ctx, { before, notifications, attempts, more: true });
}

/** On the embedded database, which runs no autovacuum, the deleted rows' space made reusable (decision 994). */
async function reclaimed(ctx: AppContext, run: PruneRun): Promise<PruneRun> {
  if (ctx.engine === 'pglite' && run.notifications > 0) await reclaimPrunedSpace(ctx.db);
  return run;
}

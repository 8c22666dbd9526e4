// The callback retention worker of `cobro serve` and `cobro worker` (decision 994): once a minute, and again at once
// while full batches keep coming, deletes a batch of delivered or failed callbacks whose last attempt is older than
// CALLBACK_RETENTION_DAYS, with their attempts. Rows are claimed with SKIP LOCKED, so several processes share it.
// Its own beat rather than a due-work handler: the bound is on the service clock and counted in days, so neither a
// sandbox clock advance (which drains an account's due work) nor a once-a-second beat has anything to do with it.
import type { AppContext } from '../platform/context.ts';
import {
  pruneCutoff,
  pruneFinalNotifications,
  reclaimPrunedSpace,
} from '../platform/notifications/prune.ts';
import { limits } from '../limits/index.ts';
import { periodicWorker } from './periodic.ts';
import type { WorkerDefinition } from './types.ts';

export const notificationRetentionWorker: WorkerDefinition = {
  name: 'notification-retention',
  start(ctx) {
    // On the embedded database, deleted callbacks' space is vacuumed once a run ends, at most once an hour.
    let deletedSinceVacuum = 0;
    let vacuumedAtMs = Number.NEGATIVE_INFINITY;
    const reclaim = async (c: AppContext) => {
      const nowMs = c.clock.now().getTime();
      if (c.engine !== 'pglite' || deletedSinceVacuum === 0) return;
      if (nowMs - vacuumedAtMs < limits.notificationVacuumIntervalMs) return;
      await reclaimPrunedSpace(c.db);
      c.logger.info({ notifications: deletedSinceVacuum }, 'pruned callbacks vacuumed');
      deletedSinceVacuum = 0;
      vacuumedAtMs = nowMs;
    };
    return periodicWorker({
      name: 'notification-retention',
      intervalMs: limits.notificationPruneIntervalMs,
      step: async (c) => {
        const days = c.config.callbackRetentionDays;
        if (days === null) return false;
        const batchMax = limits.notificationPruneBatchMax;
        const pruned = await pruneFinalNotifications(
          c.db,
          pruneCutoff(c.clock.now(), days),
          batchMax,
        );
        if (pruned.notifications > 0)
          c.logger.info({ ...pruned, retentionDays: days }, 'callbacks pruned');
        deletedSinceVacuum += pruned.notifications;
        if (pruned.notifications === batchMax) return true;
        await reclaim(c);
        return false;
      },
    }).start(ctx);
  },
};

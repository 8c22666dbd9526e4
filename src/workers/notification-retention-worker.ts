// The callback retention worker of `cobro serve` and `cobro worker` (decision 994): once a minute, and again at once
// while full batches keep coming, deletes a batch of delivered or failed callbacks whose last attempt is older than
// CALLBACK_RETENTION_DAYS, with their attempts. Rows are claimed with SKIP LOCKED, so several processes share it.
// Its own beat rather than a due-work handler: the bound is on the service clock and counted in days, so neither a
// sandbox clock advance (which drains an account's due work) nor a once-a-second beat has anything to do with it.
// On the embedded database the deleted rows' space is made reusable by the maintenance vacuum (decision 986), which
// takes every table with dead rows within the hour.
import { pruneCutoff, pruneFinalNotifications } from '../platform/notifications/prune.ts';
import { limits } from '../limits/index.ts';
import { periodicWorker } from './periodic.ts';
import type { WorkerDefinition } from './types.ts';

export const notificationRetentionWorker: WorkerDefinition = {
  name: 'notification-retention',
  start(ctx) {
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
        return pruned.notifications === batchMax;
      },
    }).start(ctx);
  },
};

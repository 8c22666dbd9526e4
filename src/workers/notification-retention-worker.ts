// The callback retention worker of `cobro serve` and `cobro worker` (decision 994): once a minute, and again at once
// while full batches keep coming, deletes a batch of delivered or failed callbacks whose last attempt is older than
// CALLBACK_RETENTION_DAYS, with their attempts. Rows are claimed with SKIP LOCKED, so several processes share it.
// Its own beat rather than a due-work handler: the bound is on the service clock and counted in days, so neither a
// sandbox clock advance (which drains an account's due work) nor a once-a-second beat has anything to do with it.
import { pruneCutoff, pruneFinalNotifications } from '../platform/notifications/prune.ts';
import { limits } from '../limits/index.ts';
import { periodicWorker } from './periodic.ts';

export const notificationRetentionWorker = periodicWorker({
  name: 'notification-retention',
  intervalMs: limits.notificationPruneIntervalMs,
  step: async (ctx) => {
    const days = ctx.config.callbackRetentionDays;
    if (days === null) return false;
    const batchMax = limits.notificationPruneBatchMax;
    const pruned = await pruneFinalNotifications(
      ctx.db,
      pruneCutoff(ctx.clock.now(), days),
      batchMax,
    );
    if (pruned.notifications > 0)
      ctx.logger.info({ ...pruned, retentionDays: days }, 'callbacks pruned');
    return pruned.notifications === batchMax;
  },
});

// The delivery worker of `cobro serve` and `cobro worker`: delivers due callbacks on a beat, and again at once
// while full batches keep coming (a step claims the next batch while the current one is in flight). Several
// processes can run it against one PostgreSQL (rows are claimed).
import { deliverWhileDue } from '../platform/notifications/deliver.ts';
import { limits } from '../limits/index.ts';
import { periodicWorker } from './periodic.ts';

export const notificationsWorker = periodicWorker({
  name: 'notifications',
  intervalMs: limits.deliveryPollIntervalMs,
  step: async (ctx, signal) => (await deliverWhileDue(ctx, signal)).more,
});

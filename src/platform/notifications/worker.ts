// The delivery worker of `cobro serve` and `cobro worker`: delivers due callbacks on a beat, and again at once
// while full batches keep coming. Several processes can run it against one PostgreSQL (rows are claimed).
import { periodicWorker } from '../../workers/periodic.ts';
import { deliverDueNotifications, deliveryBatchMax } from './deliver.ts';

export const deliveryPollIntervalMs = 1000;

export const notificationsWorker = periodicWorker({
  name: 'notifications',
  intervalMs: deliveryPollIntervalMs,
  step: async (ctx) => (await deliverDueNotifications(ctx, { limit: deliveryBatchMax })) === deliveryBatchMax,
});

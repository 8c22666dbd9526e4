// The delivery worker of `cobro serve` and `cobro worker`: delivers due callbacks on a beat, and again at once
// while full batches keep coming. Several processes can run it against one PostgreSQL (rows are claimed).
import type { WorkerDefinition } from '../../workers/index.ts';
import { deliverDueNotifications, deliveryBatchMax } from './deliver.ts';

export const deliveryPollIntervalMs = 1000;

export const notificationsWorker: WorkerDefinition = {
  name: 'notifications',
  start(ctx) {
    let stopped = false;
    let running: Promise<void> = Promise.resolve();
    let timer: NodeJS.Timeout;
    const tick = () => {
      if (stopped) return;
      let delayMs = deliveryPollIntervalMs;
      running = deliverDueNotifications(ctx, { limit: deliveryBatchMax })
        .then((attempted) => { if (attempted === deliveryBatchMax) delayMs = 0; })
        .catch((error: unknown) => { ctx.logger.error({ err: error }, 'callback delivery failed'); })
        .finally(() => { if (!stopped) timer = setTimeout(tick, delayMs); });
    };
    timer = setTimeout(tick, 0);
    return {
      async stop() {
        stopped = true;
        clearTimeout(timer);
        await running;
      },
    };
  },
};

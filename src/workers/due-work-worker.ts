// Runs the due-work handlers on a fixed beat. Safe to run in many processes: handlers claim with SKIP LOCKED.
import { drainDueWork } from '../platform/due-work.ts';
// Modules register their due-work handlers when imported; a worker-only process imports them here.
import '../modules/index.ts';
import type { WorkerDefinition } from './index.ts';

export const dueWorkIntervalMs = 1000;

export const dueWorkWorker: WorkerDefinition = {
  name: 'due-work',
  start(ctx) {
    let stopped = false;
    let running: Promise<void> = Promise.resolve();
    const tick = () => {
      if (stopped) return;
      running = drainDueWork(ctx)
        .then(() => undefined)
        .catch((error: unknown) => { ctx.logger.error({ err: error }, 'due work failed'); })
        .finally(() => { if (!stopped) timer = setTimeout(tick, dueWorkIntervalMs); });
    };
    let timer: NodeJS.Timeout = setTimeout(tick, dueWorkIntervalMs);
    return {
      async stop() {
        stopped = true;
        clearTimeout(timer);
        await running;
      },
    };
  },
};

// Background work started by `cobro serve` (and `cobro worker`). Each worker claims rows with
// FOR UPDATE SKIP LOCKED, so any number of processes can run it against one PostgreSQL.
import type { AppContext } from '../platform/context.ts';
import { dueWorkWorker } from './due-work-worker.ts';
import { notificationsWorker } from './notifications-worker.ts';
import { notificationRetentionWorker } from './notification-retention-worker.ts';
import { embeddedVacuumWorker } from './embedded-vacuum-worker.ts';
import type { RunningWorker, WorkerDefinition } from './types.ts';

export type { RunningWorker, WorkerDefinition } from './types.ts';

const workerDefinitions: readonly WorkerDefinition[] = [
  dueWorkWorker,
  notificationsWorker,
  notificationRetentionWorker,
  embeddedVacuumWorker,
];

export function startWorkers(
  ctx: AppContext,
  definitions: readonly WorkerDefinition[] = workerDefinitions,
): RunningWorker {
  const running = definitions.map((d) => {
    ctx.logger.info({ worker: d.name }, 'worker started');
    return d.start(ctx);
  });
  return {
    stop: async () => {
      await Promise.all(running.map((r) => r.stop()));
    },
  };
}

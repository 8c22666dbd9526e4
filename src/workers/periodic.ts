// A worker that runs one step on a beat, and again at once while a step reports more work waiting.
// Stopping waits for the step in flight, so no claimed row is abandoned mid-write.
import type { AppContext } from '../platform/context.ts';
import type { WorkerDefinition } from './types.ts';
import { limits } from '../limits/index.ts';
import { isDatabaseUnavailable } from '../platform/db/outage.ts';
import { databaseUnavailable, diskAlmostFull } from '../platform/errors/errors.ts';

export interface PeriodicWorkerSpec {
  readonly name: string;
  readonly intervalMs: number;
  /** The wait before the first step (none when absent). */
  readonly firstDelayMs?: number;
  /** One step; resolves true when more work is known to be waiting. `signal` aborts when the worker stops. */
  step(ctx: AppContext, signal: AbortSignal): Promise<boolean>;
}

export function periodicWorker(spec: PeriodicWorkerSpec): WorkerDefinition {
  return {
    name: spec.name,
    start(ctx) {
      let stopped = false;
      const stopping = new AbortController();
      let running: Promise<void> = Promise.resolve();
      let timer: NodeJS.Timeout;
      let failures = 0;
      const tick = () => {
        if (stopped) return;
        let delayMs = spec.intervalMs;
        // No write while the embedded database's disk is almost full: the step waits as for an outage.
        const step =
          ctx.diskSpace?.low() === true
            ? Promise.reject(databaseUnavailable(diskAlmostFull))
            : spec.step(ctx, stopping.signal);
        running = step
          .then((more) => {
            if (failures > 0)
              ctx.logger.info({ worker: spec.name, failures }, 'worker step succeeded again');
            failures = 0;
            if (more) delayMs = 0;
          })
          .catch((error: unknown) => {
            // A step that fails never stops the worker: it waits longer each time (the database away, decision 420)
            // and runs again; its claimed rows go back to the queue when their lease runs out.
            failures++;
            delayMs = Math.max(
              spec.intervalMs,
              Math.min(
                limits.workerRetryMsMin * 2 ** Math.min(failures - 1, 16),
                limits.workerRetryMsMax,
              ),
            );
            if (isDatabaseUnavailable(error))
              ctx.logger.warn(
                { worker: spec.name, reason: (error as Error).message, retryMs: delayMs },
                'worker step failed: database unavailable',
              );
            else
              ctx.logger.error(
                { err: error, worker: spec.name, retryMs: delayMs },
                'worker step failed',
              );
          })
          .finally(() => {
            if (!stopped) timer = setTimeout(tick, delayMs);
          });
      };
      timer = setTimeout(tick, spec.firstDelayMs ?? 0);
      return {
        async stop() {
          stopped = true;
          stopping.abort();
          clearTimeout(timer);
          await running;
        },
      };
    },
  };
}

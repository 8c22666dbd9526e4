// A worker that runs one step on a beat, and again at once while a step reports more work waiting.
// Stopping waits for the step in flight, so no claimed row is abandoned mid-write.
import type { AppContext } from '../platform/context.ts';
import type { WorkerDefinition } from './types.ts';

export interface PeriodicWorkerSpec {
  readonly name: string;
  readonly intervalMs: number;
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
      const tick = () => {
        if (stopped) return;
        let delayMs = spec.intervalMs;
        running = spec.step(ctx, stopping.signal)
          .then((more) => { if (more) delayMs = 0; })
          .catch((error: unknown) => { ctx.logger.error({ err: error, worker: spec.name }, 'worker step failed'); })
          .finally(() => { if (!stopped) timer = setTimeout(tick, delayMs); });
      };
      timer = setTimeout(tick, 0);
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

// Runs the context's due-work handlers on a fixed beat. Safe to run in many processes: handlers claim with SKIP LOCKED.
import { drainDueWork } from '../platform/work/due-work.ts';
import { limits } from '../limits/index.ts';
import { periodicWorker } from './periodic.ts';

export const dueWorkWorker = periodicWorker({
  name: 'due-work',
  intervalMs: limits.dueWorkIntervalMs,
  // drainDueWork already loops until nothing is left (bounded), so the next beat is soon enough.
  step: async (ctx) => {
    await drainDueWork(ctx);
    return false;
  },
});

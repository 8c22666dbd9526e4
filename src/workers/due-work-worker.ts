// Runs the due-work handlers on a fixed beat. Safe to run in many processes: handlers claim with SKIP LOCKED.
import { drainDueWork } from '../platform/due-work.ts';
// Modules register their due-work handlers when imported; a worker-only process imports them here.
import '../modules/index.ts';
import { periodicWorker } from './periodic.ts';

export const dueWorkIntervalMs = 1000;

export const dueWorkWorker = periodicWorker({
  name: 'due-work',
  intervalMs: dueWorkIntervalMs,
  // drainDueWork already loops until nothing is left (bounded), so the next beat is soon enough.
  step: async (ctx) => { await drainDueWork(ctx); return false; },
});

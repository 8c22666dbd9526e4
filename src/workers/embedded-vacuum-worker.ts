// The embedded database's maintenance vacuum (decision 986), in every `cobro serve` and `cobro worker` on PGlite:
// a minute after start every table (not at once: the start's own work goes first, and a command's short-lived
// process never runs it), then once an hour the tables with dead row versions, one table per step so the event loop
// turns between them (a VACUUM holds PGlite's one connection, and so every request, while it runs). On PostgreSQL
// autovacuum does this, and the worker does nothing. Each run logs how long it held the database.
import { performance } from 'node:perf_hooks';
import { vacuumCandidates, vacuumTable } from '../platform/db/vacuum.ts';
import { limits } from '../limits/index.ts';
import { periodicWorker } from './periodic.ts';
import type { WorkerDefinition } from './types.ts';

/** The worker, its first run `firstDelayMs` after start (a test's sooner than the service's minute). */
export function embeddedVacuumWorkerAfter(firstDelayMs: number): WorkerDefinition {
  return {
    name: 'embedded-vacuum',
    start(ctx) {
      if (ctx.engine !== 'pglite') return { stop: async () => {} };
      // The run in progress: the tables left, and what the done ones took.
      let left: string[] = [];
      let runs = 0;
      let tables = 0;
      let heldMs = 0;
      let longestMs = 0;
      let longestTable = '';
      return periodicWorker({
        name: 'embedded-vacuum',
        intervalMs: limits.embeddedVacuumIntervalMs,
        firstDelayMs,
        step: async (c) => {
          if (left.length === 0) {
            // A process's first run takes every table: the dead-row counts of an earlier process are not kept.
            left = await vacuumCandidates(c.db, runs > 0);
            runs++;
            tables = left.length;
            heldMs = 0;
            longestMs = 0;
            longestTable = '';
          }
          const table = left.shift();
          if (table === undefined) return false;
          const startedMs = performance.now();
          await vacuumTable(c.db, table);
          const tookMs = performance.now() - startedMs;
          heldMs += tookMs;
          if (tookMs > longestMs) {
            longestMs = tookMs;
            longestTable = table;
          }
          if (left.length > 0) return true;
          c.logger.info(
            {
              tables,
              heldMs: Math.round(heldMs),
              longestMs: Math.round(longestMs),
              longestTable,
            },
            'embedded database vacuumed',
          );
          return false;
        },
      }).start(ctx);
    },
  };
}

export const embeddedVacuumWorker = embeddedVacuumWorkerAfter(limits.embeddedVacuumFirstDelayMs);

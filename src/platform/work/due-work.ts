// Time-driven transitions (settlements, expiries, payout resolution, retries) as handlers that process rows
// whose due time has come, each claiming rows with FOR UPDATE SKIP LOCKED. The handlers come from the module
// definitions (src/modules/index.ts) through the context; a background worker drains them periodically, and
// advancing a sandbox clock drains them at once for that account, so tests see the result directly.
import type { AppContext } from '../context.ts';
import { limits } from '../../limits/index.ts';

export type { DueWorkScope } from '../context.ts';

/**
 * Runs every handler until none has anything left (bounded), returning the rows processed per handler. A handler
 * with a `drainMax` processes at most that many rows in one drain, however many rounds the others take.
 */
export async function drainDueWork(
  ctx: AppContext,
  accountId?: string,
): Promise<Record<string, number>> {
  const processed: Record<string, number> = {};
  for (let round = 0; round < limits.dueWorkRoundsMax; round++) {
    let any = 0;
    for (const handler of ctx.dueWork) {
      const done = processed[handler.name] ?? 0;
      // A paced handler (drainMax) claims no more than its rate allows this beat; the rest waits for the next one.
      const limit = Math.min(
        handler.batchMax ?? limits.dueWorkBatchMax,
        (handler.drainMax ?? Number.POSITIVE_INFINITY) - done,
      );
      if (limit <= 0) continue;
      const n = await handler.run(ctx, {
        ...(accountId !== undefined ? { accountId } : {}),
        limit,
      });
      processed[handler.name] = done + n;
      any += n;
    }
    if (any === 0) break;
  }
  return processed;
}

// Time-driven transitions (settlements, expiries, payout resolution, retries) as handlers that process rows
// whose due time has come, each claiming rows with FOR UPDATE SKIP LOCKED. A background worker runs them all
// periodically; advancing a sandbox clock runs them at once for that account, so tests see the result directly.
import type { AppContext } from './context.ts';

export interface DueWorkScope {
  /** Only this account's rows, when set (sandbox clock advance). */
  readonly accountId?: string;
  /** Rows to process at most in one call. */
  readonly limit: number;
}

export interface DueWorkHandler {
  readonly name: string;
  /** Processes due rows and returns how many it processed. */
  run(ctx: AppContext, scope: DueWorkScope): Promise<number>;
}

const handlers: DueWorkHandler[] = [];

/** Modules register their handlers at import time (see src/modules/index.ts). */
export function registerDueWork(handler: DueWorkHandler): void {
  if (!handlers.some((h) => h.name === handler.name)) handlers.push(handler);
}

export function dueWorkHandlers(): readonly DueWorkHandler[] {
  return handlers;
}

export const dueWorkBatchMax = 200;
export const dueWorkRoundsMax = 50;

/** Runs every handler until none has anything left (bounded), returning the rows processed per handler. */
export async function drainDueWork(ctx: AppContext, accountId?: string): Promise<Record<string, number>> {
  const processed: Record<string, number> = {};
  for (let round = 0; round < dueWorkRoundsMax; round++) {
    let any = 0;
    for (const handler of handlers) {
      const n = await handler.run(ctx, { ...(accountId !== undefined ? { accountId } : {}), limit: dueWorkBatchMax });
      processed[handler.name] = (processed[handler.name] ?? 0) + n;
      any += n;
    }
    if (any === 0) break;
  }
  return processed;
}

// PostgreSQL lock-order tests: two real paths started behind a lock held from a second connection, each waited for
// until it queues on a lock, then released together, so the order they take their locks in decides how they end.
import { sql } from 'kysely';
import type { AppContext } from '../../src/platform/context.ts';
import type { Tx } from '../../src/platform/db/types.ts';
import { lockLedgerAccounts, type LedgerKey } from '../../src/platform/ledger/post.ts';

const pollsMax = 300;
const pollMs = 20;

async function waitForLockWaits(db: AppContext['db'], n: number): Promise<void> {
  for (let i = 0; i < pollsMax; i++) {
    const r = await sql<{ n: string }>`SELECT COUNT(*)::text AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db);
    if (Number(r.rows[0]?.n ?? 0) >= n) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  throw new Error(`never saw ${n} sessions waiting on a lock`);
}

/** A raced path's end as a test compares it: a value, an HTTP answer's status and start, or the error's text. */
function endOf(settled: PromiseSettledResult<unknown>): unknown {
  if (settled.status === 'rejected') return String(settled.reason);
  const value = settled.value as { statusCode?: unknown; body?: unknown };
  return typeof value?.statusCode === 'number' && typeof value.body === 'string'
    ? { http: value.statusCode, body: value.body.slice(0, 200) }
    : settled.value;
}

/**
 * Holds the locks `hold` takes, from a transaction of the `holder` connection, while `first` starts and queues on a
 * lock, then `then` starts and queues too; releases them and answers how each path ended.
 */
export async function raceBehindHeldLock(
  holder: AppContext['db'],
  waiting: AppContext['db'],
  hold: (tx: Tx) => Promise<unknown>,
  first: () => Promise<unknown>,
  then: () => Promise<unknown>,
): Promise<[unknown, unknown]> {
  let firstRun: Promise<unknown> | undefined;
  let thenRun: Promise<unknown> | undefined;
  await holder.transaction().execute(async (tx) => {
    await hold(tx);
    firstRun = first();
    await waitForLockWaits(waiting, 1);
    thenRun = then();
    await waitForLockWaits(waiting, 2);
  });
  const [a, b] = await Promise.allSettled([firstRun!, thenRun!]);
  return [endOf(a), endOf(b)];
}

/**
 * Holds `held` (ledger accounts, in the ledger's order) from the `holder` connection while `first` starts and queues
 * on a lock, then `then` starts and queues too; releases them and answers how each path ended. Two paths whose lock
 * orders form a cycle end one of them in `deadlock detected`.
 */
export async function raceBehindHeldAccounts(
  holder: AppContext['db'],
  waiting: AppContext['db'],
  held: readonly LedgerKey[],
  first: () => Promise<unknown>,
  then: () => Promise<unknown>,
): Promise<[unknown, unknown]> {
  return raceBehindHeldLock(holder, waiting, (tx) => lockLedgerAccounts(tx, held), first, then);
}

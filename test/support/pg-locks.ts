// PostgreSQL lock-order tests: wait until `n` sessions of the test's database queue on a lock, so a test knows each
// path it raced has reached the lock it is meant to wait on before it releases the one it holds.
import { sql } from 'kysely';
import type { AppContext } from '../../src/platform/context.ts';

const pollsMax = 300;
const pollMs = 20;

export async function waitForLockWaits(db: AppContext['db'], n: number): Promise<void> {
  for (let i = 0; i < pollsMax; i++) {
    const r = await sql<{ n: string }>`SELECT COUNT(*)::text AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db);
    if (Number(r.rows[0]?.n ?? 0) >= n) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  throw new Error(`never saw ${n} sessions waiting on a lock`);
}

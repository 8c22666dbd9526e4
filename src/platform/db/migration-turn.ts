import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import { limits } from '../../limits/index.ts';
import { minuteMs } from '../../limits/units.ts';

/** Cobro's own session lock around migrating, apart from Kysely's (a key no other lock of Cobro uses). */
const migrationTurnLockId = 102_008_500_261;

/**
 * Runs `migrate` on one connection once no other process migrates this database (decision 1020). The wait asks
 * again every `migrationTurnPollMs` rather than queueing on the lock: a process queued in a statement holds a
 * snapshot, a concurrent index build of the process migrating waits for every older snapshot, and that process
 * holds the lock the queued one waits for; PostgreSQL ends such a deadlock by failing one of them.
 */
export async function inMigrationTurn<T>(
  db: Kysely<any>,
  migrate: (conn: Kysely<any>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    for (let waitedMs = 0; !(await tryLock(conn)); waitedMs += limits.migrationTurnPollMs) {
      if (waitedMs >= limits.migrationTurnWaitMsMax)
        throw new Error(
          `another process has been migrating this database for ${limits.migrationTurnWaitMsMax / minuteMs} minutes`,
        );
      await sleep(limits.migrationTurnPollMs);
    }
    try {
      return await migrate(conn);
    } finally {
      await sql`SELECT pg_advisory_unlock(${sql.lit(migrationTurnLockId)})`.execute(conn);
    }
  });
}

async function tryLock(conn: Kysely<any>): Promise<boolean> {
  const r = await sql<{
    got: boolean;
  }>`SELECT pg_try_advisory_lock(${sql.lit(migrationTurnLockId)}) AS got`.execute(conn);
  return r.rows[0]?.got === true;
}

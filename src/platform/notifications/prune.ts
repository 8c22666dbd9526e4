// Callback retention (decision 994): delivered and failed callbacks whose last attempt is older than the retention are
// deleted with their attempts, a bounded batch at a time. Never a pending or delivering one (still to be sent), and
// never one a destination change or an audit row names (a bank account's change and its notice, a resend someone
// made): those stay as long as what names them.
import { sql } from 'kysely';
import type { DbOrTx } from '../db/types.ts';
import { dayMs } from '../../limits/units.ts';

export interface PruneResult {
  readonly notifications: number;
  readonly attempts: number;
}

/** The last-attempt time before which a final callback is pruned, `days` before `now` (the service clock). */
export function pruneCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * dayMs);
}

/**
 * One batch, one statement: claims up to `limit` final callbacks last changed before `before`, oldest first, with
 * FOR UPDATE SKIP LOCKED (two workers take different rows; a row a resend holds is left to it, and one a resend
 * moved back to `pending` fails the status test once locked), and deletes their attempts and them. `updated_at` is
 * on the service clock (migration 0320) and is the time of the attempt that made the row final, or of a resend.
 */
export async function pruneFinalNotifications(
  db: DbOrTx,
  before: Date,
  limit: number,
): Promise<PruneResult> {
  const { rows } = await sql<{ notifications: string | number; attempts: string | number }>`
    WITH doomed AS (
      SELECT n.id FROM notifications n
      WHERE n.status IN ('delivered', 'failed') AND n.updated_at < ${before}::timestamptz
        AND NOT EXISTS (SELECT 1 FROM destination_changes d WHERE d.notification_id = n.id)
        AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE starts_with(a.target, 'msg_') AND a.target = n.id)
      ORDER BY n.updated_at, n.id
      LIMIT ${limit}::int
      FOR UPDATE OF n SKIP LOCKED
    ), attempts AS (
      DELETE FROM notification_attempts a USING doomed WHERE a.notification_id = doomed.id RETURNING 1
    ), gone AS (
      DELETE FROM notifications n USING doomed WHERE n.id = doomed.id RETURNING 1
    )
    SELECT (SELECT count(*) FROM gone) AS notifications, (SELECT count(*) FROM attempts) AS attempts`.execute(
    db,
  );
  const row = rows[0];
  return { notifications: Number(row?.notifications ?? 0), attempts: Number(row?.attempts ?? 0) };
}

/**
 * The embedded database (PGlite) runs no autovacuum, so the space of deleted rows was never reused: its files grew
 * as if nothing were deleted (decision 994). A plain VACUUM of the two tables marks it free; PostgreSQL's
 * autovacuum does this itself. Not in a transaction (VACUUM refuses one).
 */
export async function reclaimPrunedSpace(db: DbOrTx): Promise<void> {
  await sql`VACUUM notifications`.execute(db);
  await sql`VACUUM notification_attempts`.execute(db);
}

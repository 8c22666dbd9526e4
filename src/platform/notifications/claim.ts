// Claims due callbacks for delivery: FOR UPDATE SKIP LOCKED, so any number of workers in any number of processes
// share the rows, and a lease, so the rows of a worker that died mid-delivery come back once the lease runs out.
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import { randomHex } from '../ids.ts';
import { accountNowSql } from '../sandbox-clock.ts';
import { notificationAttemptsMax } from '../../limits.ts';
import './types.ts';

export interface ClaimOptions {
  readonly limit: number;
  readonly leaseMs: number;
  /** Only this account's rows (sandbox clock advance). */
  readonly accountId?: string;
}

export interface ClaimedNotification {
  readonly id: string;
  readonly accountId: string;
  readonly url: string;
  readonly body: string;
  readonly leaseToken: string;
  /** 1-based number of this attempt over the notification's life. */
  readonly attemptNo: number;
  /** 1-based number of this attempt within the current retry schedule. */
  readonly scheduleAttemptNo: number;
}

export const lostAttemptError = 'lease expired: the worker stopped before recording an answer';

interface ClaimedRow {
  readonly id: string;
  readonly account_id: string;
  readonly url: string;
  readonly body: string | null;
  readonly payload: unknown;
  readonly attempts: number;
  readonly schedule_start_attempts: number;
}

/**
 * One statement, so one round trip and no transaction held open across them: it picks the due rows (and those
 * whose lease ran out), marks the attempts of a dead worker lost, fails the rows a dead worker kept past the
 * schedule, leases the rest and opens their attempts. Its data-modifying parts see one snapshot and commit together.
 */
export async function claimDueNotifications(ctx: AppContext, options: ClaimOptions): Promise<readonly ClaimedNotification[]> {
  const now = ctx.clock.now();
  const leaseUntil = new Date(now.getTime() + options.leaseMs);
  const leaseToken = randomHex(12);
  const accountFilter = options.accountId === undefined ? sql`` : sql`AND account_id = ${options.accountId}`;
  const exhausted = sql`p.status = 'delivering' AND p.attempts - p.schedule_start_attempts >= ${notificationAttemptsMax}`;
  const { rows } = await sql<ClaimedRow>`WITH picked AS (
      SELECT id, status, attempts, schedule_start_attempts FROM notifications
      WHERE ((status = 'pending' AND next_attempt_at <= ${accountNowSql(ctx, sql.ref('notifications.account_id'))})
        OR (status = 'delivering' AND lease_until <= ${now}::timestamptz)) ${accountFilter}
      ORDER BY next_attempt_at, id LIMIT ${options.limit} FOR UPDATE SKIP LOCKED
    ), lost AS (
      UPDATE notification_attempts a SET outcome = 'lost', finished_at = ${now}::timestamptz, error = ${lostAttemptError}
      FROM picked p WHERE p.status = 'delivering' AND a.notification_id = p.id AND a.finished_at IS NULL
    ), failed AS (
      -- A row whose worker keeps dying on it must still end: past the schedule it fails instead of looping.
      UPDATE notifications n SET status = 'failed', lease_until = NULL, lease_token = NULL, last_error = ${lostAttemptError}, updated_at = ${now}::timestamptz
      FROM picked p WHERE n.id = p.id AND ${exhausted}
    ), claimed AS (
      UPDATE notifications n SET status = 'delivering', attempts = n.attempts + 1, lease_until = ${leaseUntil}::timestamptz,
        lease_token = ${leaseToken}, updated_at = ${now}::timestamptz
      FROM picked p WHERE n.id = p.id AND NOT (${exhausted})
      RETURNING n.id, n.account_id, n.url, n.body, CASE WHEN n.body IS NULL THEN n.payload END AS payload, n.attempts,
        n.schedule_start_attempts, n.next_attempt_at
    ), opened AS (
      INSERT INTO notification_attempts (notification_id, attempt_no, lease_token, started_at)
      SELECT id, attempts, ${leaseToken}, ${now}::timestamptz FROM claimed
    )
    SELECT id, account_id, url, body, payload, attempts, schedule_start_attempts FROM claimed ORDER BY next_attempt_at, id`.execute(ctx.db);
  // RETURNING gives the row after the update: attempts already counts this one.
  return rows.map((r) => ({
    id: r.id,
    accountId: r.account_id,
    url: r.url,
    body: r.body ?? JSON.stringify(r.payload),
    leaseToken,
    attemptNo: r.attempts,
    scheduleAttemptNo: r.attempts - r.schedule_start_attempts,
  }));
}

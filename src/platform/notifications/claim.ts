// Claims due callbacks for delivery: FOR UPDATE SKIP LOCKED, so any number of workers in any number of processes
// share the rows, and a lease, so the rows of a worker that died mid-delivery come back once the lease runs out.
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import { randomHex } from '../ids/ids.ts';
import { notificationAttemptsMax } from '../../limits/index.ts';
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
  readonly claimed_id: string;
  readonly claimed_account_id: string;
  readonly claimed_url: string;
  readonly claimed_body: string | null;
  readonly claimed_payload: unknown;
  readonly claimed_attempts: number;
  readonly claimed_schedule_start_attempts: number;
}

/**
 * One statement, so one round trip and no transaction held open across them: it picks the due rows (and those
 * whose lease ran out), marks the attempts of a dead worker lost, fails the rows a dead worker kept past the
 * schedule, leases the rest and opens their attempts. Its data-modifying parts see one snapshot and commit together.
 * The statement lives in migration 0270's function (decision 270): the session keeps its plan, a walk of the due
 * index in the queue's order that stops at the batch, where a statement planned without statistics read, filtered
 * and sorted every pending row for every batch.
 */
export async function claimDueNotifications(
  ctx: AppContext,
  options: ClaimOptions,
): Promise<readonly ClaimedNotification[]> {
  const now = ctx.clock.now();
  const leaseUntil = new Date(now.getTime() + options.leaseMs);
  const leaseToken = randomHex(12);
  // The sandbox adds each account's clock offset to `now` (ctx.accountClock.nowSql's rule); production uses the service clock.
  const { rows } =
    await sql<ClaimedRow>`SELECT * FROM cobro_claim_notifications(${now}::timestamptz, ${leaseUntil}::timestamptz,
    ${leaseToken}::text, ${options.limit}::int, ${ctx.config.mode === 'sandbox'}::boolean, ${options.accountId ?? null}::text,
    ${notificationAttemptsMax}::int, ${lostAttemptError}::text)`.execute(ctx.db);
  // RETURNING gives the row after the update: attempts already counts this one.
  return rows.map((r) => ({
    id: r.claimed_id,
    accountId: r.claimed_account_id,
    url: r.claimed_url,
    body: r.claimed_body ?? JSON.stringify(r.claimed_payload),
    leaseToken,
    attemptNo: r.claimed_attempts,
    scheduleAttemptNo: r.claimed_attempts - r.claimed_schedule_start_attempts,
  }));
}

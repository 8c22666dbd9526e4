// Claims due callbacks for delivery: FOR UPDATE SKIP LOCKED, so any number of workers in any number of processes
// share the rows, and a lease, so the rows of a worker that died mid-delivery come back once the lease runs out.
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import { randomHex } from '../ids.ts';
import { accountNowSql } from '../sandbox-clock.ts';
import { notificationAttemptsMax } from '../../limits.ts';
import './types.ts';
import { inTransaction } from '../db/unit-of-work.ts';

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

export async function claimDueNotifications(ctx: AppContext, options: ClaimOptions): Promise<readonly ClaimedNotification[]> {
  const now = ctx.clock.now();
  const leaseUntil = new Date(now.getTime() + options.leaseMs);
  const leaseToken = randomHex(12);
  return inTransaction(ctx.db, async (tx) => {
    let query = tx.selectFrom('notifications')
      .select(['id', 'account_id', 'url', 'payload', 'body', 'status', 'attempts', 'schedule_start_attempts'])
      .where((eb) => eb.or([
        eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', accountNowSql(ctx, sql.ref('notifications.account_id')))]),
        eb.and([eb('status', '=', 'delivering'), eb('lease_until', '<=', now)]),
      ]));
    if (options.accountId !== undefined) query = query.where('account_id', '=', options.accountId);
    const rows = await query.orderBy('next_attempt_at').orderBy('id').limit(options.limit).forUpdate().skipLocked().execute();
    if (rows.length === 0) return [];

    const abandoned = rows.filter((r) => r.status === 'delivering').map((r) => r.id);
    if (abandoned.length > 0) {
      await tx.updateTable('notification_attempts')
        .set({ outcome: 'lost', finished_at: now, error: lostAttemptError })
        .where('notification_id', 'in', abandoned).where('finished_at', 'is', null)
        .execute();
    }
    // A row whose worker keeps dying on it must still end: past the schedule it fails instead of looping.
    const exhausted = rows.filter((r) => r.status === 'delivering' && r.attempts - r.schedule_start_attempts >= notificationAttemptsMax);
    if (exhausted.length > 0) {
      await tx.updateTable('notifications')
        .set({ status: 'failed', lease_until: null, lease_token: null, last_error: lostAttemptError, updated_at: now })
        .where('id', 'in', exhausted.map((r) => r.id))
        .execute();
    }
    const claimable = rows.filter((r) => !exhausted.includes(r));
    if (claimable.length === 0) return [];

    await tx.updateTable('notifications')
      .set({ status: 'delivering', attempts: sql<number>`attempts + 1`, lease_until: leaseUntil, lease_token: leaseToken, updated_at: now })
      .where('id', 'in', claimable.map((r) => r.id))
      .execute();
    await tx.insertInto('notification_attempts')
      .values(claimable.map((r) => ({ notification_id: r.id, attempt_no: r.attempts + 1, lease_token: leaseToken, started_at: now })))
      .execute();
    return claimable.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      url: r.url,
      body: r.body ?? JSON.stringify(r.payload),
      leaseToken,
      attemptNo: r.attempts + 1,
      scheduleAttemptNo: r.attempts + 1 - r.schedule_start_attempts,
    }));
  });
}

// Merchant and operator access to callback deliveries: list with filters, one with its attempt log, resend.
import type { AppContext } from '../../platform/context.ts';
import { ruleFailure, type RuleFailure } from '../../platform/errors/errors.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import type { AttemptOutcome, NotificationStatus } from '../../platform/notifications/types.ts';
import { notificationAttemptsMax } from '../../limits/index.ts';
import {
  findNotification,
  findNotificationDetail,
  listAttempts,
  listNotificationRows,
  type NotificationFilter,
  type NotificationRow,
} from './repository.ts';
import { parseJsonExact } from '../../platform/money/json-number.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { answerShown } from '../../platform/notifications/ssrf-guard.ts';

export interface NotificationView {
  readonly id: string;
  readonly account_id: string;
  readonly event_type: string;
  readonly url: string;
  readonly status: NotificationStatus;
  readonly attempts: number;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly next_attempt_at: string | null;
  readonly created_at: string;
  readonly delivered_at: string | null;
}

interface AttemptView {
  readonly attempt: number;
  readonly started_at: string;
  readonly finished_at: string | null;
  readonly outcome: AttemptOutcome | null;
  readonly status_code: number | null;
  readonly latency_ms: number | null;
  readonly error: string | null;
  readonly response_excerpt: string | null;
}

function notificationView(ctx: AppContext, row: NotificationRow): NotificationView {
  const tz = ctx.config.timeZone;
  return {
    id: row.id,
    account_id: row.account_id,
    event_type: row.event_type,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? formatTimestamp(row.next_attempt_at, tz) : null,
    created_at: formatTimestamp(row.created_at, tz),
    delivered_at: row.delivered_at === null ? null : formatTimestamp(row.delivered_at, tz),
  };
}

export interface NotificationPage {
  readonly total: number;
  readonly notifications: readonly NotificationView[];
}

export async function listNotifications(
  ctx: AppContext,
  filter: NotificationFilter,
): Promise<NotificationPage> {
  const { total, rows } = await listNotificationRows(ctx.db, filter);
  return { total, notifications: rows.map((r) => notificationView(ctx, r)) };
}

export interface NotificationDetail extends NotificationView {
  readonly payload: Record<string, unknown>;
  readonly attempts_log: readonly AttemptView[];
}

export async function showNotification(
  ctx: AppContext,
  id: string,
  accountId: string | null,
): Promise<NotificationDetail | null> {
  const row = await findNotificationDetail(ctx.db, id, accountId);
  if (row === undefined) return null;
  const tz = ctx.config.timeZone;
  const attempts = await listAttempts(ctx.db, id, notificationAttemptsMax * 20);
  // An answer kept before decision 987 through a trusted origin not vouched for this account stays unshown (983).
  const shown = answerShown(row.url, ctx.config, row.account_id);
  return {
    ...notificationView(ctx, row),
    // As sent: an integer past 2^53 - 1 keeps its digits, the keys their order (decision 930).
    payload: parseJsonExact(row.payload_text) as Record<string, unknown>,
    attempts_log: attempts.map((a) => ({
      attempt: a.attempt_no,
      started_at: formatTimestamp(a.started_at, tz),
      finished_at: a.finished_at === null ? null : formatTimestamp(a.finished_at, tz),
      outcome: a.outcome,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      error: a.error,
      response_excerpt: shown ? a.response_excerpt : null,
    })),
  };
}

/**
 * Sends a notification again as soon as a worker is free: a delivered or failed one starts a fresh retry schedule,
 * a pending one stops waiting for its next retry. Same webhook-id, so receivers can deduplicate.
 * `accountId` scopes it to a merchant; null is the operator.
 */
export async function retryNotification(
  ctx: AppContext,
  id: string,
  accountId: string | null,
): Promise<NotificationView | RuleFailure | null> {
  const retried = await inTransaction(ctx.db, async (tx) => {
    let query = tx
      .selectFrom('notifications')
      .select(['id', 'account_id', 'status', 'attempts'])
      .where('id', '=', id);
    if (accountId !== null) query = query.where('account_id', '=', accountId);
    const row = await query.forUpdate().executeTakeFirst();
    if (row === undefined) return null;
    if (row.status === 'delivering') return ruleFailure('notification_delivering');
    const now = ctx.clock.now();
    await tx
      .updateTable('notifications')
      .set({
        status: 'pending',
        next_attempt_at: await ctx.accountClock.now(row.account_id, tx),
        updated_at: now,
        ...(row.status === 'pending' ? {} : { schedule_start_attempts: row.attempts }),
      })
      .where('id', '=', id)
      .execute();
    return 'ok' as const;
  });
  if (retried === null || retried !== 'ok') return retried;
  const row = await findNotification(ctx.db, id, accountId);
  return row === undefined ? null : notificationView(ctx, row);
}

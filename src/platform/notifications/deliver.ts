// Delivers due callbacks: claim, sign, POST, record. The worker loop and tests (with a ManualClock) call
// deliverDueNotifications directly; nothing here keeps state between calls.
import assert from 'node:assert/strict';
import type { AppContext } from '../context.ts';
import { accountNow } from '../sandbox-clock.ts';
import { claimDueNotifications, type ClaimedNotification } from './claim.ts';
import { retryDelayMs } from './schedule.ts';
import { sendWebhook, type SendResult } from './send.ts';
import type { BaseLookup } from './ssrf-guard.ts';
import { webhookHeaders } from './sign.ts';
import type { AttemptOutcome } from './types.ts';
import { inTransaction } from '../db/unit-of-work.ts';
import { sql } from 'kysely';
import { limits } from '../../limits.ts';

export interface DeliverOptions {
  readonly limit?: number;
  readonly leaseMs?: number;
  readonly accountId?: string;
  readonly timeoutMs?: number;
  /** Stands in for DNS under the address guard (tests). */
  readonly resolve?: BaseLookup;
}

/** Claims and delivers up to `limit` due callbacks; returns how many attempts were made. */
export async function deliverDueNotifications(ctx: AppContext, options: DeliverOptions = {}): Promise<number> {
  const limit = Math.min(options.limit ?? limits.deliveryBatchMax, limits.deliveryBatchMax);
  const leaseMs = options.leaseMs ?? limits.deliveryLeaseMs;
  const timeoutMs = options.timeoutMs ?? limits.deliveryTimeoutMs;
  assert.ok(limit >= 1, 'limit is positive');
  assert.ok(Math.ceil(limit / limits.deliveryConcurrencyMax) * timeoutMs < leaseMs, 'a batch must finish inside its lease');
  const claimed = await claimDueNotifications(ctx, { limit, leaseMs, ...(options.accountId !== undefined ? { accountId: options.accountId } : {}) });
  const secrets = new Map<string, Promise<string | null>>();
  const secretOf = (accountId: string) => {
    let found = secrets.get(accountId);
    if (found === undefined) secrets.set(accountId, found = ctx.accounts.webhookSecretOf(accountId));
    return found;
  };
  let next = 0;
  const recorder = attemptRecorder(ctx);
  const lane = async () => {
    while (next < claimed.length) {
      const row = claimed[next++]!;
      recorder.add({ row, result: await send(ctx, row, await secretOf(row.accountId), timeoutMs, options.resolve) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limits.deliveryConcurrencyMax, claimed.length) }, lane));
  await recorder.flush();
  return claimed.length;
}

async function send(ctx: AppContext, row: ClaimedNotification, secret: string | null, timeoutMs: number, resolve: BaseLookup | undefined): Promise<SendResult> {
  try {
    return secret === null
      ? { statusCode: null, error: 'account has no webhook secret', responseExcerpt: null, latencyMs: 0 }
      : await sendWebhook({
        url: row.url,
        headers: webhookHeaders(secret, row.id, ctx.clock.now(), row.body),
        body: row.body,
        policy: ctx.config,
        timeoutMs,
        ...(resolve !== undefined ? { resolve } : {}),
      });
  } catch (error) {
    // A fault of ours (an unreadable secret) is a failed attempt like any other, retried on the schedule.
    return { statusCode: null, error: `internal: ${error instanceof Error ? error.message : String(error)}`, responseExcerpt: null, latencyMs: 0 };
  }
}

export interface AttemptResult {
  readonly row: ClaimedNotification;
  readonly result: SendResult;
}

/**
 * Collects the batch's answers and records them a group at a time (limits.deliveryRecordBatchMax per database
 * transaction, one after another), so recording costs a few round trips per group rather than four per callback,
 * while a slow receiver holding one lane does not hold back the record of the others.
 */
function attemptRecorder(ctx: AppContext) {
  let pending: AttemptResult[] = [];
  let recorded = Promise.resolve();
  const flush = (): Promise<void> => {
    const group = pending;
    pending = [];
    if (group.length > 0) recorded = recorded.then(() => recordAttemptsOrLog(ctx, group));
    return recorded;
  };
  return {
    add(entry: AttemptResult): void {
      pending.push(entry);
      if (pending.length >= limits.deliveryRecordBatchMax) void flush();
    },
    flush,
  };
}

async function recordAttemptsOrLog(ctx: AppContext, group: readonly AttemptResult[]): Promise<void> {
  try {
    await recordAttempts(ctx, group);
  } catch (error) {
    // The rows keep their lease and come back when it expires (sent again: callbacks are at least once).
    ctx.logger.error({ err: error, notifications: group.map((e) => e.row.id) }, 'could not record callback attempts');
  }
}

function outcomeOf(result: SendResult, delayMs: number | null): Exclude<AttemptOutcome, 'lost'> {
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) return 'delivered';
  // 410 Gone: the receiver says this URL will never take callbacks again (Standard Webhooks convention).
  if (result.statusCode === 410 || delayMs === null) return 'failed';
  return 'retry';
}

/** Records one answer (tests; delivery records a group at a time through recordAttempts). */
export async function recordAttempt(ctx: AppContext, row: ClaimedNotification, result: SendResult): Promise<void> {
  await recordAttempts(ctx, [{ row, result }]);
}

/**
 * Records a group of answers in one transaction: each attempt's outcome, and each notification's new state, the
 * latter only while this claim still holds the lease (a worker that took the row over owns its state now).
 */
export async function recordAttempts(ctx: AppContext, group: readonly AttemptResult[]): Promise<void> {
  assert.ok(group.length >= 1 && group.length <= limits.deliveryBatchMax, 'a group of one claimed batch');
  const now = ctx.clock.now();
  const decided = [];
  for (const { row, result } of group) {
    const delayMs = retryDelayMs(row.scheduleAttemptNo, Math.random());
    const outcome = outcomeOf(result, delayMs);
    const nextAttemptAt = outcome === 'retry' ? new Date((await accountNow(ctx, row.accountId)).getTime() + (delayMs ?? 0)) : null;
    decided.push({ row, result, outcome, nextAttemptAt });
  }
  const attempts = sql.join(decided.map(({ row, result, outcome }) => sql`(${row.id}::text, ${row.attemptNo}::int, ${outcome}::text,
    ${result.statusCode}::int, ${result.latencyMs}::int, ${result.error}::text, ${result.responseExcerpt}::text)`));
  const states = sql.join(decided.map(({ row, result, outcome, nextAttemptAt }) => sql`(${row.id}::text, ${row.leaseToken}::text,
    ${outcome === 'retry' ? 'pending' : outcome}::text, ${result.statusCode}::int, ${result.error}::text, ${nextAttemptAt}::timestamptz,
    ${outcome === 'delivered' ? now : null}::timestamptz)`));
  await inTransaction(ctx.db, async (tx) => {
    await sql`UPDATE notification_attempts a SET outcome = v.outcome, finished_at = ${now}::timestamptz, status_code = v.status_code,
        latency_ms = v.latency_ms, error = v.error, response_excerpt = v.excerpt
      FROM (VALUES ${attempts}) AS v (notification_id, attempt_no, outcome, status_code, latency_ms, error, excerpt)
      WHERE a.notification_id = v.notification_id AND a.attempt_no = v.attempt_no`.execute(tx);
    await sql`UPDATE notifications n SET status = v.status, lease_until = NULL, lease_token = NULL, last_status_code = v.status_code,
        last_error = v.error, updated_at = ${now}::timestamptz,
        next_attempt_at = COALESCE(v.next_attempt_at, n.next_attempt_at), delivered_at = COALESCE(v.delivered_at, n.delivered_at)
      FROM (VALUES ${states}) AS v (id, lease_token, status, status_code, error, next_attempt_at, delivered_at)
      WHERE n.id = v.id AND n.lease_token = v.lease_token`.execute(tx);
  });
  for (const { row, result, outcome } of decided) {
    ctx.logger.info({ notification: row.id, attempt: row.attemptNo, outcome, statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error }, 'callback attempt');
  }
}

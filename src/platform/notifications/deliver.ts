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
  const lane = async () => {
    while (next < claimed.length) {
      const row = claimed[next++]!;
      await deliverOne(ctx, row, await secretOf(row.accountId), timeoutMs, options.resolve);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limits.deliveryConcurrencyMax, claimed.length) }, lane));
  return claimed.length;
}

async function deliverOne(ctx: AppContext, row: ClaimedNotification, secret: string | null, timeoutMs: number, resolve: BaseLookup | undefined): Promise<void> {
  let result: SendResult;
  try {
    result = secret === null
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
    result = { statusCode: null, error: `internal: ${error instanceof Error ? error.message : String(error)}`, responseExcerpt: null, latencyMs: 0 };
  }
  try {
    await recordAttempt(ctx, row, result);
  } catch (error) {
    // The row keeps its lease and comes back when it expires; the other rows of the batch go on.
    ctx.logger.error({ err: error, notification: row.id }, 'could not record a callback attempt');
  }
}

function outcomeOf(result: SendResult, delayMs: number | null): Exclude<AttemptOutcome, 'lost'> {
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) return 'delivered';
  // 410 Gone: the receiver says this URL will never take callbacks again (Standard Webhooks convention).
  if (result.statusCode === 410 || delayMs === null) return 'failed';
  return 'retry';
}

export async function recordAttempt(ctx: AppContext, row: ClaimedNotification, result: SendResult): Promise<void> {
  const now = ctx.clock.now();
  const delayMs = retryDelayMs(row.scheduleAttemptNo, Math.random());
  const outcome = outcomeOf(result, delayMs);
  const nextAttemptAt = outcome === 'retry' ? new Date((await accountNow(ctx, row.accountId)).getTime() + (delayMs ?? 0)) : null;
  await inTransaction(ctx.db, async (tx) => {
    await tx.updateTable('notification_attempts').set({
      outcome,
      finished_at: now,
      status_code: result.statusCode,
      latency_ms: result.latencyMs,
      error: result.error,
      response_excerpt: result.responseExcerpt,
    }).where('notification_id', '=', row.id).where('attempt_no', '=', row.attemptNo).execute();
    // Only while this claim still holds the lease: a worker that took the row over owns its state now.
    await tx.updateTable('notifications').set({
      status: outcome === 'retry' ? 'pending' : outcome,
      lease_until: null,
      lease_token: null,
      last_status_code: result.statusCode,
      last_error: result.error,
      updated_at: now,
      ...(nextAttemptAt !== null ? { next_attempt_at: nextAttemptAt } : {}),
      ...(outcome === 'delivered' ? { delivered_at: now } : {}),
    }).where('id', '=', row.id).where('lease_token', '=', row.leaseToken).execute();
  });
  ctx.logger.info({ notification: row.id, attempt: row.attemptNo, outcome, statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error }, 'callback attempt');
}

// Delivers due callbacks: claim, sign, POST, record. The worker loop calls deliverWhileDue, tests (with a
// ManualClock) and the sandbox clock's advance call deliverDueNotifications; nothing here keeps state between calls.
import assert from 'node:assert/strict';
import type { AppContext } from '../context.ts';
import { attemptRecorder } from './attempt-record.ts';
import { claimDueNotifications, type ClaimedNotification } from './claim.ts';
import { sendWebhook, type SendResult } from './send.ts';
import type { BaseLookup } from './ssrf-guard.ts';
import { webhookHeaders } from './sign.ts';
import { limits } from '../../limits/index.ts';

export interface DeliverOptions {
  readonly limit?: number;
  readonly leaseMs?: number;
  readonly accountId?: string;
  readonly timeoutMs?: number;
  /** Stands in for DNS under the address guard (tests). */
  readonly resolve?: BaseLookup;
}

/** Claims and delivers up to `limit` due callbacks; returns how many attempts were made. */
export async function deliverDueNotifications(
  ctx: AppContext,
  options: DeliverOptions = {},
): Promise<number> {
  const limit = Math.min(options.limit ?? limits.deliveryBatchMax, limits.deliveryBatchMax);
  return (await deliverRun(ctx, { ...options, limit }, 1, null)).attempts;
}

export interface DeliverRun {
  readonly attempts: number;
  /** The last claim came back full: more callbacks are probably due. */
  readonly more: boolean;
}

/**
 * The worker's step: claims and delivers batch after batch (up to limits.deliveryRunBatchesMax) while they come
 * back full, claiming the next batch as soon as the last row of the current one is handed to a lane, so the lanes
 * never wait for a claim or a record. Stops claiming once `signal` aborts, and delivers what it holds.
 */
export function deliverWhileDue(
  ctx: AppContext,
  signal: AbortSignal,
  options: DeliverOptions = {},
): Promise<DeliverRun> {
  return deliverRun(
    ctx,
    { ...options, limit: limits.deliveryBatchMax },
    limits.deliveryRunBatchesMax,
    signal,
  );
}

interface Queued {
  readonly row: ClaimedNotification;
  readonly secret: Promise<string | null>;
}

/** A run's lease and send timeout, checked: every batch claimed must be answered inside its lease. */
function timingOf(
  options: DeliverOptions & { readonly limit: number },
  batchesMax: number,
): { leaseMs: number; timeoutMs: number } {
  const leaseMs = options.leaseMs ?? limits.deliveryLeaseMs;
  const timeoutMs = options.timeoutMs ?? limits.deliveryTimeoutMs;
  assert.ok(options.limit >= 1 && batchesMax >= 1, 'limit is positive');
  // A batch is claimed while at most one lane-full of the last one is still in flight: all of it, behind those,
  // must be answered before the lease runs out.
  assert.ok(
    (Math.ceil(options.limit / limits.deliveryConcurrencyMax) + 1) * timeoutMs < leaseMs,
    'a batch must finish inside its lease',
  );
  return { leaseMs, timeoutMs };
}

/** The claimed rows queued for the lanes, each with its account's webhook secret. */
function queueWithSecrets(
  ctx: AppContext,
  claimed: readonly ClaimedNotification[],
  queue: Queued[],
): void {
  // Read once per account and batch: a rotated secret applies from the next batch on.
  const secrets = new Map<string, Promise<string | null>>();
  for (const row of claimed) {
    let secret = secrets.get(row.accountId);
    if (secret === undefined) {
      secrets.set(row.accountId, (secret = ctx.accounts.webhookSecretOf(row.accountId)));
      // Awaited by each of its rows' sends, maybe later: a failed read is their failed attempt, not a crash.
      secret.catch(() => undefined);
    }
    queue.push({ row, secret });
  }
}

async function deliverRun(
  ctx: AppContext,
  options: DeliverOptions & { readonly limit: number },
  batchesMax: number,
  signal: AbortSignal | null,
): Promise<DeliverRun> {
  const { leaseMs, timeoutMs } = timingOf(options, batchesMax);
  const claimOptions = {
    limit: options.limit,
    leaseMs,
    ...(options.accountId !== undefined ? { accountId: options.accountId } : {}),
  };
  const queue: Queued[] = [];
  let claims = 0;
  let attempts = 0;
  let more = true;
  let claiming: Promise<void> | null = null;
  const claim = async (): Promise<void> => {
    claims++;
    const claimed = await claimDueNotifications(ctx, claimOptions);
    more = claimed.length === options.limit;
    attempts += claimed.length;
    queueWithSecrets(ctx, claimed, queue);
  };
  const refill = (): void => {
    if (claiming !== null || !more || claims >= batchesMax || signal?.aborted === true) return;
    claiming = claim()
      .catch((error: unknown) => {
        // The rows delivered so far still get recorded; the next step claims again.
        more = false;
        ctx.logger.error({ err: error }, 'could not claim callbacks');
      })
      .finally(() => {
        claiming = null;
      });
  };
  await claim();
  const recorder = attemptRecorder(ctx);
  const lane = async (): Promise<void> => {
    for (;;) {
      const next = queue.shift();
      if (next === undefined) {
        if (claiming === null) return;
        await claiming;
        continue;
      }
      if (queue.length === 0) refill();
      recorder.add({
        row: next.row,
        result: await send(ctx, next.row, next.secret, timeoutMs, options.resolve),
      });
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(limits.deliveryConcurrencyMax, queue.length) }, lane),
  );
  await recorder.flush();
  return { attempts, more };
}

async function send(
  ctx: AppContext,
  row: ClaimedNotification,
  secretRead: Promise<string | null>,
  timeoutMs: number,
  resolve: BaseLookup | undefined,
): Promise<SendResult> {
  try {
    const secret = await secretRead;
    return secret === null
      ? {
          statusCode: null,
          error: 'account has no webhook secret',
          responseExcerpt: null,
          latencyMs: 0,
        }
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
    return {
      statusCode: null,
      error: `internal: ${error instanceof Error ? error.message : String(error)}`,
      responseExcerpt: null,
      latencyMs: 0,
    };
  }
}

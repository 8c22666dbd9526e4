// Delivers due callbacks: claim, sign, POST, record. The worker loop calls deliverWhileDue, tests (with a
// ManualClock) and the sandbox clock's advance call deliverDueNotifications; nothing here keeps state between calls.
import assert from 'node:assert/strict';
import type { AppContext } from '../context.ts';
import type { WebhookSecrets } from '../auth/account-directory.ts';
import { attemptRecorder } from './attempt-record.ts';
import { claimDueNotifications, type ClaimedNotification } from './claim.ts';
import { sendWebhook, type SendResult } from './send.ts';
import type { BaseLookup } from './ssrf-guard.ts';
import { signingSecrets, webhookHeaders } from './sign.ts';
import { laneTraffic, type Queued } from './lanes.ts';
import { limits } from '../../limits/index.ts';

export interface DeliverOptions {
  readonly limit?: number;
  readonly leaseMs?: number;
  readonly accountId?: string;
  readonly timeoutMs?: number;
  /** The longest an answer waits to be recorded with others (tests shorten it with the lease). */
  readonly recordDelayMs?: number;
  /** Stands in for DNS under the address guard (tests). */
  readonly resolve?: BaseLookup;
  /** Timeouts of one origin before a run skips it (limits.deliveryStallTimeoutsMin; a test of timing raises it). */
  readonly stallTimeoutsMin?: number;
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
 * never wait for a claim or a record. Stops claiming once `signal` aborts, and delivers what it holds; sends not
 * answered limits.deliveryStopSendsMs after that are aborted and recorded as failed attempts, retried later.
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

/** A run's lease, send timeout and record delay, checked: every batch claimed must be recorded inside its lease. */
function timingOf(
  options: DeliverOptions & { readonly limit: number },
  batchesMax: number,
): { leaseMs: number; timeoutMs: number; recordDelayMs: number } {
  const leaseMs = options.leaseMs ?? limits.deliveryLeaseMs;
  const timeoutMs = options.timeoutMs ?? limits.deliveryTimeoutMs;
  const recordDelayMs = options.recordDelayMs ?? limits.deliveryRecordDelayMs;
  assert.ok(options.limit >= 1 && batchesMax >= 1, 'limit is positive');
  // A batch is claimed while at most one lane-full of the last one is still in flight: all of it, behind those,
  // must be answered, and each answer recorded, before the lease runs out.
  assert.ok(
    (Math.ceil(options.limit / limits.deliveryConcurrencyMax) + 1) * timeoutMs + recordDelayMs <
      leaseMs,
    'a batch must be answered and recorded inside its lease',
  );
  return { leaseMs, timeoutMs, recordDelayMs };
}

/**
 * Aborts limits.deliveryStopSendsMs after `stopping` does: a stopping worker's sends get that long to be answered, so
 * that it records them well before the process gives up on it (limits.shutdownGraceMs). `end` when the run is over.
 */
function sendsCutOff(stopping: AbortSignal | null): { signal: AbortSignal; end(): void } {
  const cutOff = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const start = (): void => {
    timer = setTimeout(() => cutOff.abort(), limits.deliveryStopSendsMs);
  };
  if (stopping?.aborted === true) start();
  else stopping?.addEventListener('abort', start, { once: true });
  return {
    signal: cutOff.signal,
    end: () => {
      clearTimeout(timer);
      stopping?.removeEventListener('abort', start);
    },
  };
}

/** The claimed rows queued for the lanes, each with its account's webhook secret. */
function queueWithSecrets(
  ctx: AppContext,
  claimed: readonly ClaimedNotification[],
  queue: Queued[],
): void {
  // Read once per account and batch: a rotated secret applies from the next batch on. Whether a retired secret's grace
  // still lasts is asked at each send, of the clock.
  const secrets = new Map<string, Promise<WebhookSecrets | null>>();
  for (const row of claimed) {
    let secret = secrets.get(row.accountId);
    if (secret === undefined) {
      secrets.set(row.accountId, (secret = ctx.accounts.webhookSecretsOf(row.accountId)));
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
  const { leaseMs, timeoutMs, recordDelayMs } = timingOf(options, batchesMax);
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
  const recorder = attemptRecorder(ctx, recordDelayMs);
  const cutOff = sendsCutOff(signal);
  const sending: SendOptions = { timeoutMs, cutOff: cutOff.signal, resolve: options.resolve };
  const traffic = laneTraffic(
    timeoutMs,
    recorder,
    options.stallTimeoutsMin ?? limits.deliveryStallTimeoutsMin,
  );
  const lane = async (): Promise<void> => {
    for (;;) {
      const next = traffic.next(queue);
      if (queue.length === 0) refill();
      if (next === undefined) {
        if (claiming === null) return;
        await claiming;
        continue;
      }
      recorder.add({
        row: next.row,
        result: await traffic.send(next, () => send(ctx, next, sending)),
      });
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(limits.deliveryConcurrencyMax, queue.length) }, lane),
  );
  cutOff.end();
  await recorder.flush();
  return { attempts, more };
}

interface SendOptions {
  readonly timeoutMs: number;
  readonly cutOff: AbortSignal;
  readonly resolve: BaseLookup | undefined;
}

async function send(
  ctx: AppContext,
  { row, secret: secretRead }: Queued,
  { timeoutMs, cutOff, resolve }: SendOptions,
): Promise<SendResult> {
  try {
    const secret = await secretRead;
    const now = ctx.clock.now();
    return secret === null
      ? {
          statusCode: null,
          error: 'account has no webhook secret',
          responseExcerpt: null,
          latencyMs: 0,
        }
      : await sendWebhook({
          url: row.url,
          headers: webhookHeaders(signingSecrets(secret, now), row.id, now, row.body),
          body: row.body,
          policy: ctx.config,
          accountId: row.accountId,
          timeoutMs,
          cutOff,
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

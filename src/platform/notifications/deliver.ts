// Delivers due callbacks: claim, sign, POST, record. The worker loop calls deliverWhileDue, tests (with a
// ManualClock) and the sandbox clock's advance call deliverDueNotifications; nothing here keeps state between calls.
import assert from 'node:assert/strict';
import type { AppContext } from '../context.ts';
import { claimDueNotifications, type ClaimedNotification } from './claim.ts';
import { retryDelayMs } from './schedule.ts';
import { sendWebhook, type SendResult } from './send.ts';
import type { BaseLookup } from './ssrf-guard.ts';
import { webhookHeaders } from './sign.ts';
import type { AttemptOutcome } from './types.ts';
import { sql } from 'kysely';
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

interface AttemptResult {
  readonly row: ClaimedNotification;
  readonly result: SendResult;
}

/**
 * Collects the run's answers and records them a group at a time (limits.deliveryRecordBatchMax per statement, one
 * after another), so recording costs one round trip per group rather than four per callback, while a slow receiver
 * holding one lane does not hold back the record of the others.
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

async function recordAttemptsOrLog(
  ctx: AppContext,
  group: readonly AttemptResult[],
): Promise<void> {
  try {
    await recordAttempts(ctx, group);
  } catch (error) {
    // The rows keep their lease and come back when it expires (sent again: callbacks are at least once).
    ctx.logger.error(
      { err: error, notifications: group.map((e) => e.row.id) },
      'could not record callback attempts',
    );
  }
}

function outcomeOf(result: SendResult, delayMs: number | null): Exclude<AttemptOutcome, 'lost'> {
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300)
    return 'delivered';
  // 410 Gone: the receiver says this URL will never take callbacks again (Standard Webhooks convention).
  if (result.statusCode === 410 || delayMs === null) return 'failed';
  return 'retry';
}

/** Records one answer (tests; delivery records a group at a time through recordAttempts). */
export async function recordAttempt(
  ctx: AppContext,
  row: ClaimedNotification,
  result: SendResult,
): Promise<void> {
  await recordAttempts(ctx, [{ row, result }]);
}

/**
 * Records a group of answers in one statement (atomic, one round trip): each attempt's outcome, and each
 * notification's new state, the latter only while this claim still holds the lease (a worker that took the row over
 * owns its state now).
 */
async function recordAttempts(ctx: AppContext, group: readonly AttemptResult[]): Promise<void> {
  assert.ok(
    group.length >= 1 && group.length <= limits.deliveryBatchMax,
    'a group of one claimed batch',
  );
  const now = ctx.clock.now();
  const decided: {
    row: ClaimedNotification;
    result: SendResult;
    outcome: Exclude<AttemptOutcome, 'lost'>;
    nextAttemptAt: Date | null;
    finishedAt: Date;
  }[] = [];
  for (const { row, result } of group) {
    const delayMs = retryDelayMs(row.scheduleAttemptNo, Math.random());
    const outcome = outcomeOf(result, delayMs);
    const nextAttemptAt =
      outcome === 'retry'
        ? new Date(
            (await ctx.accountClock.now(row.accountId, ctx.db, { kept: true })).getTime() +
              (delayMs ?? 0),
          )
        : null;
    // The answer's time on the clock the callback was created and fell due on: the account's in sandbox (migration
    // 0320), so a delivery never reads as earlier than the callback it delivers.
    const finishedAt =
      ctx.config.mode === 'sandbox'
        ? await ctx.accountClock.now(row.accountId, ctx.db, { kept: true })
        : now;
    decided.push({ row, result, outcome, nextAttemptAt, finishedAt });
  }
  // One array per column (unnest), not one parameter per cell: eleven parameters for any group size. The statement is
  // migration 0270's function (decision 270): its plan is kept for the session, and it finds each row by its primary
  // key, where a statement planned without statistics read the whole outbox and attempt log to join a group to them.
  const column = <T>(pick: (d: (typeof decided)[number]) => T): T[] => decided.map(pick);
  await sql`SELECT cobro_record_notification_attempts(${now}::timestamptz, ${column((d) => d.row.id)}::text[],
    ${column((d) => d.row.attemptNo)}::int[], ${column((d) => d.row.leaseToken)}::text[], ${column((d) => d.outcome)}::text[],
    ${column((d) => d.result.statusCode)}::int[], ${column((d) => d.result.latencyMs)}::int[], ${column((d) => d.result.error)}::text[],
    ${column((d) => d.result.responseExcerpt)}::text[], ${column((d) => d.nextAttemptAt?.toISOString() ?? null)}::timestamptz[],
    ${column((d) => d.finishedAt.toISOString())}::timestamptz[])`.execute(ctx.db);
  for (const { row, result, outcome } of decided) {
    ctx.logger.info(
      {
        notification: row.id,
        attempt: row.attemptNo,
        outcome,
        statusCode: result.statusCode,
        latencyMs: result.latencyMs,
        error: result.error,
      },
      'callback attempt',
    );
  }
}

// Recording callback delivery attempts (deliver.ts sends them): each answer's outcome and next retry, a lane's
// answers recorded a group at a time.
import assert from 'node:assert/strict';
import type { AppContext } from '../context.ts';
import type { ClaimedNotification } from './claim.ts';
import { retryDelayMs } from './schedule.ts';
import type { SendResult } from './send.ts';
import type { AttemptOutcome } from './types.ts';
import { sql } from 'kysely';
import { isDatabaseUnavailable } from '../db/outage.ts';
import { limits } from '../../limits/index.ts';

export interface AttemptResult {
  readonly row: ClaimedNotification;
  readonly result: SendResult;
}

/**
 * Collects the run's answers and records them a group at a time, so recording costs one round trip per group rather
 * than four per callback, while a slow receiver holding one lane does not hold back the record of the others. A
 * group is recorded once limits.deliveryRecordBatchMax answers are in, or `delayMs` after its first answer came,
 * whichever is sooner (decision 705): an answer never waits on later, slower ones, so it is recorded inside its lease.
 * Groups are recorded one after another.
 */
export function attemptRecorder(ctx: AppContext, delayMs: number = limits.deliveryRecordDelayMs) {
  let pending: AttemptResult[] = [];
  let recorded = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const flush = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    const group = pending;
    pending = [];
    if (group.length > 0) recorded = recorded.then(() => recordAttemptsOrLog(ctx, group));
    return recorded;
  };
  return {
    add(entry: AttemptResult): void {
      pending.push(entry);
      if (pending.length >= limits.deliveryRecordBatchMax) void flush();
      else timer ??= setTimeout(() => void flush(), delayMs);
    },
    flush,
  };
}

/**
 * Records a group; if the database refuses its statement, each of its answers alone, so that one answer it cannot take
 * does not leave the others' rows `delivering`, to be sent again. (With the database away, each would fail too.)
 */
async function recordAttemptsOrLog(
  ctx: AppContext,
  group: readonly AttemptResult[],
): Promise<void> {
  try {
    await recordAttempts(ctx, group);
  } catch (error) {
    if (group.length > 1 && !isDatabaseUnavailable(error)) {
      ctx.logger.warn(
        { err: error, answers: group.length },
        'recording callback answers one at a time',
      );
      for (const entry of group) await recordAttemptsOrLog(ctx, [entry]);
    } else {
      // The row keeps its lease and comes back when it expires (sent again: callbacks are at least once).
      ctx.logger.error(
        { err: error, notifications: group.map((e) => e.row.id) },
        'could not record callback attempts',
      );
    }
  }
}

/**
 * Text as a text column takes it: PostgreSQL refuses the NUL character, which a receiver's answer may hold, and a
 * lone surrogate has no UTF-8 form. Each becomes U+FFFD, so the excerpt still shows where it was.
 */
function storable(text: string | null): string | null {
  return text === null ? null : text.replaceAll('\u0000', '\uFFFD').toWellFormed();
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
    ${column((d) => d.result.statusCode)}::int[], ${column((d) => d.result.latencyMs)}::int[], ${column((d) => storable(d.result.error))}::text[],
    ${column((d) => storable(d.result.responseExcerpt))}::text[], ${column((d) => d.nextAttemptAt?.toISOString() ?? null)}::timestamptz[],
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

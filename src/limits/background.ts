// Bounds of the background work: due work (settlements, expiries, payouts...), callback delivery and its retry
// schedule, and a failed worker's backoff.
import { secondMs, minuteMs, hourMs } from './units.ts';

export const backgroundLimits = {
  // Background work: due work (settlements, expiries, payouts...) and callback delivery.
  dueWorkBatchMax: 200,
  dueWorkRoundsMax: 50,
  /**
   * The due sales one settlement transaction claims and writes by one statement, and one call of the settlement
   * handler settles (decision 561): a killed run loses at most this much work (it commits nothing of it), and the
   * statement's arrays stay under a megabyte.
   */
  settlementChunkMax: 1_000,
  dueWorkIntervalMs: secondMs,
  deliveryPollIntervalMs: secondMs,
  deliveryBatchMax: 128,
  deliveryConcurrencyMax: 32,
  /**
   * Lanes one account's callbacks take while another account's callback waits in the queue (decision 800): a
   * merchant whose receiver hangs cannot hold the others back. With no other account waiting it may take them all.
   */
  deliveryAccountLanesMax: 8,
  /**
   * Sends to one origin that time out in a worker's run before the run sends that origin nothing more (decision 800):
   * a receiver that hangs gives them at once, one that is merely slow now and then does not.
   */
  deliveryStallTimeoutsMin: 8,
  /** Batches one step of the delivery worker claims back to back before it yields to the beat. */
  deliveryRunBatchesMax: 16,
  /** Answers recorded per database statement (src/platform/notifications/attempt-record.ts). */
  deliveryRecordBatchMax: 128,
  /**
   * The longest an answer waits for others to share its record statement (decision 705): long enough to gather the
   * answers of a busy second into few statements, short against the lease and the shutdown grace.
   */
  deliveryRecordDelayMs: 250,
  /** A stopping worker's sends get this long to be answered; then they are aborted and recorded as retries. */
  deliveryStopSendsMs: 10 * secondMs,
  /** A kept-alive callback connection idle this long is closed (receivers' servers commonly close at 5 s). */
  deliveryIdleSocketMs: 4 * secondMs,
  /** One callback POST, connect to last byte. */
  deliveryTimeoutMs: 15 * secondMs,
  /**
   * A callback host's name asked of the name servers (decision 855): each try waits this long, and a lookup makes
   * deliveryDnsTries of them (c-ares doubles the wait from one round to the next), well inside deliveryTimeoutMs.
   */
  deliveryDnsTryMs: 2 * secondMs,
  deliveryDnsTries: 2,
  /** Long enough for every row of a batch to be sent and answered before another worker may take it over. */
  deliveryLeaseMs: 90 * secondMs,
  responseExcerptBytesMax: 1024,
  deliveryErrorLengthMax: 500,
  /** Webhook signing keys kept prepared in memory (src/platform/notifications/sign.ts), one per account secret. */
  webhookKeysCachedMax: 1000,
  /** Callback URLs kept parsed and checked in memory (src/platform/notifications/send.ts). */
  callbackTargetsCachedMax: 1000,
  /**
   * Supplement §5.3: delay before retry n+1 after failed attempt n (1-based); attempts beyond the list end in
   * `failed`. Each delay is jittered by up to retryJitterFraction either way.
   */
  retryDelaysMs: [
    5 * secondMs,
    5 * minuteMs,
    30 * minuteMs,
    2 * hourMs,
    5 * hourMs,
    10 * hourMs,
    14 * hourMs,
    20 * hourMs,
    24 * hourMs,
  ] as readonly number[],
  retryJitterFraction: 0.1,
  /**
   * Callback retention (decision 994): the delivered or failed callbacks one prune statement deletes, with their
   * attempts (ten each on a full schedule), so one statement's locks and write stay small.
   */
  notificationPruneBatchMax: 500,
  /** The retention worker's beat: a minute is soon enough for a bound counted in days. */
  notificationPruneIntervalMs: minuteMs,
  /**
   * The embedded database runs no autovacuum: its maintenance worker vacuums the tables with dead row versions this
   * often (decision 986), one table per step, the event loop turning between.
   */
  embeddedVacuumIntervalMs: hourMs,
  /** Its first run, over every table, this long after a process starts (after the start's own work). */
  embeddedVacuumFirstDelayMs: minuteMs,
  /** The tables one maintenance run lists (the schema has 61). */
  embeddedVacuumTablesMax: 1000,
  /** Batches one `cobro notifications prune` runs before it stops and says to run it again (5 million callbacks). */
  notificationPruneRunBatchesMax: 10_000,
  /** A background worker whose step failed (the database away) waits this long, doubling up to the max, per failure. */
  workerRetryMsMin: secondMs,
  workerRetryMsMax: 8 * secondMs,
} as const;

/** One first attempt plus one per scheduled retry. */
export const notificationAttemptsMax = backgroundLimits.retryDelaysMs.length + 1;

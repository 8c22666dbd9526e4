// Bounds of the database: the pool, prepared statements, the embedded database's memory, chunked reads,
// outages, and the change-notification connection.
import assert from 'node:assert/strict';
import { secondMs } from './units.ts';
import { requestLimits } from './http.ts';
import { sandboxLimits } from './sandbox.ts';

export const databaseLimits = {
  /** The change-notification connection (LISTEN) reconnects after this, doubling up to the max. */
  changeFeedRetryMsMin: 500,
  changeFeedRetryMsMax: 5 * secondMs,
  /**
   * The LISTEN connection sends nothing of its own, so one dropped without a word (a NAT or load balancer forgetting
   * an idle flow, a host gone in a failover) would look alive for the kernel's keep-alive, two hours. The feed asks it
   * `SELECT 1` this often and counts an answer later than the second bound as a lost connection (decision 950).
   */
  changeFeedCheckIntervalMs: 5 * secondMs,
  changeFeedAnswerMsMax: 5 * secondMs,
  dbPoolSizeMax: 10,
  /** PostgreSQL keeps this many bytes of a connection's application_name (NAMEDATALEN - 1). */
  applicationNameBytesMax: 63,
  /** PostgreSQL's bound on one statement's parameters (a 16-bit count in the protocol); StatementText asserts it. */
  dbStatementParamsMax: 65_535,
  /**
   * Named prepared statements on PostgreSQL (decision 230): statements kept per connection (each holds a parse tree
   * and a plan in its backend), distinct texts named per process, texts remembered as seen once before they are
   * named, and the longest text named.
   */
  dbPreparedPerConnectionMax: 256,
  dbPreparedNamesMax: 2048,
  dbPreparedSeenTextsMax: 4096,
  dbPreparedTextLengthMax: 32_768,
  /** Rows per query when a large page is read (src/platform/db/chunked-read.ts): bounds how long one query holds
   *  PGlite's thread, about 10 ms on this box. */
  dbReadChunkRowsMax: 500,
  /** The embedded database's buffer cache: PostgreSQL's 128 MB default is most of an idle server's RSS; a merchant's
   *  embedded database is small and the OS page cache stands behind it (docs/performance.md). PGlite's WebAssembly
   *  heap never shrinks and its shared memory is touched whole at start, so every MB here is a MB of RSS; 16 MB
   *  served the bench no faster than 8 (decision 210); 4 cost no CPU per request beyond the noise, 2 did in half the
   *  rounds (decision 350). */
  pgliteSharedBuffersMb: 4,
  /** The embedded database's lock table, per backend slot (max_locks_per_transaction). PGlite runs PostgreSQL in
   *  single-user mode, one backend, so it starts with one connection slot instead of 100 (decision 240) and the
   *  lock table is this times the slots left (the connection and the autovacuum and auxiliary slots PostgreSQL
   *  reserves in any mode). Every migration from an empty database runs with 16; 128 costs no more shared memory
   *  than PostgreSQL's default of 64. */
  pgliteMaxLocksPerTransaction: 128,
  /** How long a starting process waits to reach DATABASE_URL before it says it cannot (an unrouted host never refuses). */
  dbStartupConnectTimeoutMs: 10 * secondMs,
  /**
   * A new PostgreSQL connection, or the wait for a pooled one, gives up after this (decision 685): a host gone silent
   * neither refuses nor answers, and the request then answers 503.
   */
  dbConnectTimeoutMs: 5 * secondMs,
  /**
   * `cobro serve`'s bound on one PostgreSQL statement (decision 685): unanswered this long, the statement fails (503)
   * and its connection is closed. Every statement a request or a worker runs is bounded by a page or a chunk far
   * below it; operator commands (`cobro migrate`, `cobro ledger verify`) have none.
   */
  dbServeQueryTimeoutMs: 15 * secondMs,
  /** /readyz on PostgreSQL answers 503 when `SELECT 1` is not answered within this (decision 685). */
  dbReadyProbeTimeoutMs: 3 * secondMs,
  /** How long Cobro waits on one host of a several-host DATABASE_URL while looking for the primary (decision 522). */
  dbHostProbeTimeoutMs: 2 * secondMs,
  /** What a 503 for a database that does not answer tells the client to wait (Retry-After, seconds; decision 420). */
  dbUnavailableRetryAfterS: 2,
  /**
   * A process waiting for another's migrations asks for its turn this often instead of queueing in a statement,
   * whose snapshot a concurrent index build would wait for (decision 1020)...
   */
  migrationTurnPollMs: 100,
  /** ...and gives up after this long, as Kysely's queued lock did (its lock_timeout). */
  migrationTurnWaitMsMax: 60 * 60 * secondMs,
  /** How deep an error's `cause` chain and AggregateErrors are searched for an outage: far beyond what a driver nests. */
  dbErrorNestingMax: 8,
} as const;

// A change feed gone silent is noticed well before what it kept (accounts, clock offsets) ages out (decision 950).
// Asserted as this file loads, which every start does (index.ts has no line left for it).
assert.ok(
  2 * (databaseLimits.changeFeedCheckIntervalMs + databaseLimits.changeFeedAnswerMsMax) <=
    Math.min(requestLimits.authCacheEntryAgeMsMax, sandboxLimits.sandboxOffsetKeptAgeMsMax),
  'a silent change feed is noticed before what it kept ages out',
);

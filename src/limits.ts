// Every bound the service enforces, in one place (STYLE rule 4). Field lengths come from the seed's tables.
import assert from 'node:assert/strict';

export const limits = {
  bodyBytesMax: 1024 * 1024,
  pageSizeMax: 4000,
  pageSizeDefault: 1000,
  amountDigitsMax: 14,
  /** 10^14 - 1: the largest amount the seed's "max 14 digits" allows. */
  amountMinorMax: 99_999_999_999_999n,
  accountNameLengthMax: 120,
  additionalParametersCharsMax: 4000,
  idempotencyKeyLengthMax: 255,
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
  requestIdLengthMax: 128,
  opsRequestBytesMax: 64 * 1024,
  cliListRowsMax: 1000,
  dbPoolSizeMax: 10,
  // Longer than one callback send (15 s), so a stopping server finishes its deliveries in flight.
  shutdownGraceMs: 20_000,
} as const;

assert.ok(limits.pageSizeDefault <= limits.pageSizeMax, 'default page must fit the maximum page');
assert.ok(limits.amountMinorMax < BigInt(Number.MAX_SAFE_INTEGER) * 100n, 'amounts stay exact as bigint');
assert.ok(limits.opsRequestBytesMax < limits.bodyBytesMax);

// --- HTTP timeouts, rate limit, DATA_DIR permissions (decision 072) ---
// Defaults of the HTTP_*_MS and RATE_LIMIT_PER_MINUTE variables (src/platform/config.ts) and the bounds they may take.
export const httpLimits = {
  /** Whole request (headers and body) must arrive within this; a body trickled slower is cut off (408). */
  requestTimeoutMsDefault: 30_000,
  /** Headers must arrive within this (Node's headersTimeout; slowloris). At most the request timeout. */
  headersTimeoutMsDefault: 15_000,
  /** A socket silent this long mid-request or mid-response is closed; longer than any handler's work. */
  connectionTimeoutMsDefault: 60_000,
  /** An idle keep-alive socket waits this long; longer than the 60 s idle timeout of common load balancers. */
  keepAliveTimeoutMsDefault: 72_000,
  /** How often Node looks for requests past their timeouts: the slack on top of each timeout. */
  timeoutCheckIntervalMs: 1_000,
  timeoutMsMin: 100,
  timeoutMsMax: 10 * 60 * 1000,
  /** Requests per minute per public token (per IP without one), per process; 0 in the environment turns it off. */
  rateLimitPerMinuteDefault: 6_000,
  rateLimitPerMinuteMax: 1_000_000,
  rateLimitWindowMs: 60_000,
  /** Buckets kept (least recently used leave first); more than the accounts and client addresses of a busy minute. */
  rateLimitKeysMax: 100_000,
  /** Public tokens remembered as valid, so that their requests count per token and made-up tokens count per IP. */
  rateLimitKnownTokensMax: 100_000,
} as const;

export const dataDirLimits = {
  /** Entries of DATA_DIR a permission pass looks at; the embedded database holds a few thousand. */
  scanEntriesMax: 100_000,
  /** Loose paths named one per warning line at start; the rest are counted in one more line. */
  loosePathWarningsMax: 50,
} as const;

assert.ok(httpLimits.headersTimeoutMsDefault <= httpLimits.requestTimeoutMsDefault, 'Node requires headersTimeout <= requestTimeout');
assert.ok(httpLimits.timeoutCheckIntervalMs < httpLimits.headersTimeoutMsDefault, 'timeouts are checked often beside their length');
assert.ok(httpLimits.rateLimitPerMinuteDefault <= httpLimits.rateLimitPerMinuteMax);

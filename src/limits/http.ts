// Bounds of an HTTP request: what one may carry, how long a list page is, the credentials and signatures it
// presents, the hosted checkout's forms; and the HTTP server's timeouts and rate limit (decision 072).
import { secondMs, minuteMs } from './units.ts';

export const requestLimits = {
  // HTTP: what one request may carry.
  bodyBytesMax: 1024 * 1024,
  /** The router refuses longer path parameters (`id: too long`) before any route's own schema sees them. */
  pathParamLengthMax: 200,
  requestIdLengthMax: 128,
  /** A Bearer token longer than any we issue is refused as invalid without a database lookup. */
  bearerTokenLengthMax: 200,
  /**
   * Authenticated accounts kept in memory per process (decision 190): found by token without a database round trip,
   * dropped on every change notification. The age bound only caps a notification channel that silently stops
   * delivering (a pooler in transaction mode); a live channel drops changed entries at once.
   */
  authCacheEntriesMax: 10_000,
  authCacheEntryAgeMsMax: 60 * secondMs,
  /** How deep the input guards follow nested objects; deeper input than any merchant sends is refused. */
  inputDepthMax: 64,
  /**
   * Digits past which a JSON number in an integer field is read as too large without being spelt out (`1e400`,
   * `1e999999999`): more than any integer field's maximum, few enough that no exponent builds a giant integer.
   */
  integerNumberDigitsMax: 20,
  // Pages: every list is bounded.
  pageSizeMax: 4000,
  pageSizeDefault: 1000,
  /** The largest page number a wallet list accepts. */
  walletPageMax: 1_000_000,
  notificationsPerPageMax: 200,
  notificationsPerPageDefault: 50,
  notificationsPageMax: 10_000,
  cliListRowsMax: 1000,
  // The Cobro-Signature header (decision 140).
  /** How far a signature's timestamp may be from the service clock, either way (Stripe's default window). */
  cobroSignatureToleranceMs: 5 * minuteMs,
  /** `t=` plus a few `v1=` MACs (several while a client rotates keys); a longer header is refused unread. */
  cobroSignatureLengthMax: 400,
  /** Strict-Transport-Security's max-age when PUBLIC_BASE_URL is https (decision 440): a year. */
  hstsMaxAgeS: 365 * 24 * 60 * 60,
  // Hosted checkout and its link.
  /** The largest form a checkout page accepts. */
  checkoutFormBytesMax: 8 * 1024,
  /** 32 hex characters (128 bits) of the link's MAC: the reference shows 10, which would be guessable. */
  checkoutTokenHexLength: 32,
  /** A checkout link's or form's transaction id, and its `valid` and other text fields. */
  checkoutIdLengthMax: 40,
  checkoutFieldLengthMax: 64,
} as const;

/**
 * Defaults of the HTTP_*_MS and RATE_LIMIT_PER_MINUTE variables (src/platform/process/config.ts) and the bounds they
 * may take.
 */
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

// Every bound the service enforces, in one place (STYLE rule 4), grouped by area. Field lengths come from the
// seed's tables. How the bounds relate is asserted by assertLimits(), which the composition root (runtime.ts)
// runs at start-up and which also runs when this file loads, so a bad edit fails every test at once. The business
// modules' groups live in ./limits/modules.ts and are re-exported here: importers name this file only.
import assert from 'node:assert/strict';
import { secondMs, minuteMs, hourMs, dayMs } from './limits/units.ts';
import { transactionLimits, marketplaceLimits, subscriptionLimits, eventLimits, refundLimits, escrowLimits, conciliationLimits, mallLimits, dashboardLimits } from './limits/modules.ts';

export { transactionLimits, marketplaceLimits, subscriptionLimits, eventLimits, refundLimits, escrowLimits, conciliationLimits, mallLimits, dashboardLimits };

export const limits = {
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
  /**
   * Sandbox clock offsets kept in memory per process (decision 260), dropped on every clock's move; the age bound
   * caps a notification channel that silently stops delivering, as the accounts' does.
   */
  sandboxOffsetsKeptMax: 10_000,
  sandboxOffsetKeptAgeMsMax: 60 * secondMs,
  /** The change-notification connection (LISTEN) reconnects after this, doubling up to the max. */
  changeFeedRetryMsMin: 500,
  changeFeedRetryMsMax: 5 * secondMs,
  /** How deep the input guards follow nested objects; deeper input than any merchant sends is refused. */
  inputDepthMax: 64,
  // Pages: every list is bounded.
  pageSizeMax: 4000,
  pageSizeDefault: 1000,
  /** The largest page number a wallet list accepts. */
  walletPageMax: 1_000_000,
  notificationsPerPageMax: 200,
  notificationsPerPageDefault: 50,
  notificationsPageMax: 10_000,
  cliListRowsMax: 1000,

  // Money and fields from the seed.
  amountDigitsMax: 14,
  /** 10^14 - 1: the largest amount the seed's "max 14 digits" allows. */
  amountMinorMax: 99_999_999_999_999n,
  accountNameLengthMax: 120,
  additionalParametersCharsMax: 4000,
  callbackUrlLengthMax: 600,
  currencyCodeLengthMax: 6,
  /** `YYYY-MM-DD HH:MM:SS`, the seed's date-time text. */
  dateTimeTextLengthMax: 19,
  /** `YYYY-MM-DD`, the seed's date filters. */
  dateTextLengthMax: 10,
  /** A `true`/`false` query flag. */
  flagTextLengthMax: 5,
  transactionIdLengthMax: 30,
  /** A payment method code in a query or form; 99 offers all (allMethodsPayment). */
  paymentMethodCodeMax: 999,
  /** The largest page number the transaction list accepts. */
  transactionPageMax: 1_000_000,
  notificationIdLengthMax: 64,
  /** A fee's percentage in basis points: at most 100 %. */
  feePercentBpMax: 10_000,

  // Ledger: one journal, one split.
  /** The postings of one journal; a sale's settlement posts one per beneficiary or client share. */
  postingsPerJournalMax: 64,
  /** The journals one statement writes: a payout's reservation and its immediate outcome are two. */
  journalsPerStatementMax: 4,
  /** The parts one amount is divided into (src/platform/money/split.ts). */
  sharesPerSplitMax: 64,

  // Wallet and payouts (seed "Wallet"; reference §9).
  /**
   * The most a wallet may hold: the balance is shown as a JSON integer (amount_available), which is exact only up to
   * 2^53 - 1. Crediting past it would commit the money and then fail every read of the wallet with a 500.
   */
  walletBalanceMinorMax: BigInt(Number.MAX_SAFE_INTEGER),
  payoutEmailLengthMax: 50, payoutPhoneLengthMax: 20,
  /** The seed's 4-digit SBIF bank code of a payout. */
  payoutBankSbifLengthMax: 4,
  payoutIdLengthMax: 40, payoutOrderLengthMax: 80,
  payoutSubjectLengthMax: 200,
  /** Banco Estado (0012): at most 12 characters, so a debit card number cannot be entered (seed Limits). */
  bancoEstadoNumLengthMax: 12,
  bankNumLengthMax: 200,
  bankRutLengthMax: 15,
  bankHolderNameLengthMax: 180,
  /** The reason an operator or a sandbox credit gives for crediting a wallet. */
  walletCreditReasonLengthMax: 200,
  /**
   * Payouts of one wallet written in one transaction by a group commit (decision 220): bounds how long it holds the
   * wallet's lock, and how many requests one unexpected failure sends to run again alone.
   */
  walletGroupCommitPayoutsMax: 32,
  /**
   * Keyless creates written by one statement (decision 400): bounds the statement's arrays, and how many requests
   * one unexpected failure sends to run again alone.
   */
  transactionCreateGroupMax: 32,
  /** Sandbox payout schedule for amounts without an immediate outcome, in account time from creation. */
  sandboxPayoutProcessingAfterMs: minuteMs,
  sandboxPayoutSuccessAfterMs: hourMs,
  /** Production payouts in one bank payroll file (`cobro payouts export`); the rest wait for the next file. */
  payoutBatchRowsMax: 2000,
  /** The largest bank results file `cobro payouts import` reads, and its longest reason text. */
  payoutResultsFileBytesMax: 4 * 1024 * 1024,
  payoutResultReasonLengthMax: 200,
  /** Problems of a refused results file named one per line on stderr; past this many, the rest are counted. */
  payoutImportProblemLinesMax: 20,

  // Idempotency keys.
  idempotencyKeyLengthMax: 255,
  idempotencyTtlMs: dayMs,
  /** How long a request may run before its claim is considered abandoned: the default of IDEMPOTENCY_LEASE_MS. */
  idempotencyLeaseMs: minuteMs,
  /** The shortest IDEMPOTENCY_LEASE_MS: a claim must outlast a command's own commit. */
  idempotencyLeaseMsMin: 1_000,
  idempotencyClaimAttemptsMax: 3,

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
  checkoutIdLengthMax: 40, checkoutFieldLengthMax: 64,

  // Marketplace deposits of clients' settled shares.
  /**
   * How long a settled share waits in the client's payable before it is sent to the client's bank: deposits go out
   * in the next day's run (decision 046), which also gives `liquidate` a day's life the merchant can see.
   */
  clientDepositDelayMs: dayMs,
  /** How long a bank takes to confirm a deposit to a client's account. */
  clientDepositConfirmMs: dayMs,

  // Background work: due work (settlements, expiries, payouts...) and callback delivery.
  dueWorkBatchMax: 200,
  dueWorkRoundsMax: 50,
  dueWorkIntervalMs: secondMs,
  deliveryPollIntervalMs: secondMs,
  deliveryBatchMax: 128,
  deliveryConcurrencyMax: 32,
  /** Batches one step of the delivery worker claims back to back before it yields to the beat. */
  deliveryRunBatchesMax: 16,
  /** Answers recorded per database statement (src/platform/notifications/deliver.ts). */
  deliveryRecordBatchMax: 128,
  /** A kept-alive callback connection idle this long is closed (receivers' servers commonly close at 5 s). */
  deliveryIdleSocketMs: 4 * secondMs,
  /** One callback POST, connect to last byte. */
  deliveryTimeoutMs: 15 * secondMs,
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
    5 * secondMs, 5 * minuteMs, 30 * minuteMs, 2 * hourMs, 5 * hourMs, 10 * hourMs, 14 * hourMs, 20 * hourMs, 24 * hourMs,
  ] as readonly number[],
  retryJitterFraction: 0.1,

  // Sandbox clock.
  /** One advance moves an account's clock by at most this much. */
  sandboxAdvanceMsMax: 400 * dayMs,
  /**
   * How far ahead of the service clock an account's sandbox clock may run in all. Without a bound, repeated advances
   * took account time past year 9999, where timestamps no longer render or store and every payment and payout
   * failed with a 500.
   */
  sandboxOffsetMsMax: 100 * 366 * dayMs,

  // Process: operator socket, database pool, shutdown.
  opsRequestBytesMax: 64 * 1024,
  /** How long the CLI waits to learn whether a server answers on the operator socket. */
  opsPingTimeoutMs: 2 * secondMs,
  /** How long the CLI waits for a command run by the serving process. */
  opsCommandTimeoutMs: 2 * minuteMs,
  dbPoolSizeMax: 10,
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
  /** What a 503 for a database that does not answer tells the client to wait (Retry-After, seconds; decision 420). */
  dbUnavailableRetryAfterS: 2,
  /** How deep an error's `cause` chain and AggregateErrors are searched for an outage: far beyond what a driver nests. */
  dbErrorNestingMax: 8,
  /** A background worker whose step failed (the database away) waits this long, doubling up to the max, per failure. */
  workerRetryMsMin: secondMs,
  workerRetryMsMax: 8 * secondMs,
  /**
   * Free space DATA_DIR's file system must keep for the embedded database to accept writes: a WAL segment (16 MB)
   * filled whole, the data files it describes, and a checkpoint's worth to spare (decision 420).
   */
  dataDirFreeBytesMin: 64 * 1024 * 1024,
  dataDirSpaceCheckMs: secondMs,
  /** A stopping server finishes its callback deliveries in flight before it gives up. */
  shutdownGraceMs: 20 * secondMs,
  /** A /metrics scrape must never hold a connection for long: a slow count fails the scrape, not the API. */
  metricsQueryTimeoutMs: 2 * secondMs,
  /** Time zones whose Intl formatter a process keeps (src/platform/time-format.ts): the service zone, plus what
   *  tests ask for; past this the cache starts again. */
  timeZonesKeptMax: 64,
} as const;

/** One first attempt plus one per scheduled retry. */
export const notificationAttemptsMax = limits.retryDelaysMs.length + 1;

// --- Environment variables: defaults and ranges of PORT, SETTLEMENT_DELAY_DAYS, METRICS_TOKEN (src/platform/config.ts). ---
export const configLimits = {
  portDefault: 8080, portMin: 0, portMax: 65535,
  settlementDelayDaysDefault: 1, settlementDelayDaysMin: 0, settlementDelayDaysMax: 60,
  metricsTokenLengthMin: 16, metricsTokenLengthMax: 200,
  /** CALLBACK_TRUSTED_ORIGINS entries (decision 151): a handful of internal receivers, not a second DNS. */
  callbackTrustedOriginsMax: 20,
  /** READY_TIMEOUT_MS (decision 410): a cold start takes about a second; a minute is far past any slow disk. */
  readyTimeoutMsDefault: 60_000, readyTimeoutMsMin: 100, readyTimeoutMsMax: 60 * 60_000,
  /** TRUST_PROXY: addresses or networks of the reverse proxies in front (docs/going-live.md). */
  trustedProxiesMax: 20,
} as const;

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

/** How the bounds relate; a bound changed alone that breaks one of these is a bug, caught before serving. */
export function assertLimits(): void {
  const l = limits;
  assert.ok(l.pageSizeDefault <= l.pageSizeMax, 'default page must fit the maximum page');
  // A subscription list page is read through readInChunks, which refuses a page past the largest page.
  assert.ok(subscriptionLimits.subscriptionsPerPageMax <= l.pageSizeMax, 'a subscription list page must fit the largest page');
  assert.ok(l.notificationsPerPageDefault <= l.notificationsPerPageMax, 'default notifications page must fit the maximum');
  assert.ok(l.amountMinorMax === 10n ** BigInt(l.amountDigitsMax) - 1n, 'the amount bound is the seed\'s digit count');
  assert.ok(l.amountMinorMax < BigInt(Number.MAX_SAFE_INTEGER), 'amounts stay exact as JSON numbers');
  assert.ok(l.opsRequestBytesMax < l.bodyBytesMax, 'an operator request is smaller than an API body');
  assert.ok(l.opsPingTimeoutMs < l.opsCommandTimeoutMs, 'a ping answers sooner than a command');
  assert.ok(l.bancoEstadoNumLengthMax <= l.bankNumLengthMax, 'the Banco Estado bound narrows the bank account number');
  // Callbacks: a batch finishes inside its lease; a send finishes before a stopping server gives up on it; the
  // worker polls more often than the shortest retry, so a retry goes out close to when it is due.
  // The next batch is claimed while the last lane-full of the current one is still in flight.
  assert.ok((Math.ceil(l.deliveryBatchMax / l.deliveryConcurrencyMax) + 1) * l.deliveryTimeoutMs < l.deliveryLeaseMs, 'a batch must finish inside its lease');
  assert.ok(l.deliveryTimeoutMs < l.shutdownGraceMs, 'shutdown waits for a callback in flight');
  assert.ok(l.deliveryPollIntervalMs < (l.retryDelaysMs[0] ?? 0) * (1 - l.retryJitterFraction), 'the worker polls more often than the shortest retry');
  assert.ok(l.retryDelaysMs.length >= 1 && l.retryDelaysMs.every((d, i) => i === 0 || d >= l.retryDelaysMs[i - 1]!), 'retry delays never shrink');
  assert.ok(l.retryJitterFraction >= 0 && l.retryJitterFraction < 1, 'jitter keeps every delay positive');
  assert.ok(l.deliveryBatchMax <= l.dueWorkBatchMax, 'a drain takes at least one delivery batch');
  assert.ok(l.deliveryRecordBatchMax <= l.deliveryBatchMax, 'answers are recorded in groups of one batch');
  assert.ok(l.dueWorkRoundsMax >= 2, 'a drain can follow one handler\'s output into another');
  // Sandbox: one advance fits the total offset; the payout schedule resolves within one advance.
  assert.ok(l.sandboxAdvanceMsMax <= l.sandboxOffsetMsMax, 'one advance fits the total sandbox offset');
  assert.ok(l.sandboxPayoutProcessingAfterMs < l.sandboxPayoutSuccessAfterMs, 'a sandbox payout processes before it succeeds');
  assert.ok(l.sandboxPayoutSuccessAfterMs <= l.sandboxAdvanceMsMax, 'one advance can resolve a sandbox payout');
  assert.ok(l.idempotencyTtlMs > l.deliveryLeaseMs, 'a key outlives any lease');
  // Idempotency: a claim's lease ends long before the key expires.
  assert.ok(l.cobroSignatureToleranceMs < l.idempotencyTtlMs, 'a signed request cannot outlive its Idempotency-Key\'s replay');
  assert.ok(l.idempotencyLeaseMs < l.idempotencyTtlMs, 'an idempotency claim\'s lease is shorter than its key\'s life');
  // Ledger and wallet: a split, an event's beneficiaries and a membership's clients each fit one journal.
  assert.ok(l.sharesPerSplitMax <= l.postingsPerJournalMax, 'a split fits one journal');
  assert.ok(eventLimits.beneficiariesMax < l.postingsPerJournalMax, 'an event\'s beneficiaries fit one settlement journal');
  assert.ok(marketplaceLimits.membershipClientsMax < l.postingsPerJournalMax, 'a membership\'s clients fit one settlement journal');
  assert.ok(l.walletBalanceMinorMax <= BigInt(Number.MAX_SAFE_INTEGER) && l.amountMinorMax < l.walletBalanceMinorMax, 'a wallet balance stays an exact JSON integer and holds any single amount');
  // Transactions and checkout: a crashed payment attempt frees the transaction before the earliest expiry.
  assert.equal(BigInt(transactionLimits.amountIntegerMax), l.amountMinorMax, 'schema maximum matches the global amount bound');
  assert.equal(transactionLimits.urlnotifyLengthMax, l.callbackUrlLengthMax, 'urlnotify is a callback URL');
  assert.ok(transactionLimits.attemptLeaseMs < transactionLimits.expiryLeadMsMin, 'a crashed attempt frees the transaction before it can expire');
  assert.ok(Number.isInteger(transactionLimits.paymentAttemptsMax) && transactionLimits.paymentAttemptsMax >= 1, 'a payer has at least one payment attempt');
  assert.ok(transactionLimits.eventLengthMax === eventLimits.codeLengthMax, 'a transaction\'s event code is an event\'s code');
  assert.ok(l.checkoutFormBytesMax < l.bodyBytesMax, 'a checkout form is smaller than an API body');
  assert.ok(l.checkoutTokenHexLength <= l.checkoutFieldLengthMax, 'the link token fits the checkout form field');
  // Marketplace deposits: a share waits, then is confirmed; both within the sandbox's one advance.
  assert.ok(l.clientDepositDelayMs + l.clientDepositConfirmMs <= l.sandboxAdvanceMsMax, 'one advance can take a share to paid');
  // Recurring billing (decision 101): one advance takes a declined cycle through all its retries to suspension, and
  // a billing attempt's lease (a dead worker's) runs out before the cycle's next retry is due.
  assert.ok(subscriptionLimits.planRetriesMax * subscriptionLimits.cycleRetryIntervalMs <= l.sandboxAdvanceMsMax, 'one advance can suspend a declined cycle');
  assert.ok(subscriptionLimits.chargeLeaseMs < subscriptionLimits.cycleRetryIntervalMs, 'a dead billing attempt frees its cycle before the next retry');
  // Environment ranges: each default lies inside its range.
  const c = configLimits;
  assert.ok(c.portMin <= c.portDefault && c.portDefault <= c.portMax);
  assert.ok(c.settlementDelayDaysMin <= c.settlementDelayDaysDefault && c.settlementDelayDaysDefault <= c.settlementDelayDaysMax);
  assert.ok(c.metricsTokenLengthMin <= c.metricsTokenLengthMax);
  assert.ok(l.metricsQueryTimeoutMs < httpLimits.requestTimeoutMsDefault, 'a scrape\'s queries give up before the request does');
  // HTTP (decision 072).
  assert.ok(httpLimits.headersTimeoutMsDefault <= httpLimits.requestTimeoutMsDefault, 'Node requires headersTimeout <= requestTimeout');
  assert.ok(httpLimits.timeoutCheckIntervalMs < httpLimits.headersTimeoutMsDefault, 'timeouts are checked often beside their length');
  assert.ok(httpLimits.rateLimitPerMinuteDefault <= httpLimits.rateLimitPerMinuteMax);
  // Dashboard.
  assert.ok(dashboardLimits.formBytesMax < l.bodyBytesMax, 'a dashboard form is smaller than an API body');
  assert.ok(dashboardLimits.tokenLengthMax === l.bearerTokenLengthMax, 'the sign-in form takes any token the API takes');
}

assertLimits();

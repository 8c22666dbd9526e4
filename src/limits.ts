// Every bound the service enforces, in one place (STYLE rule 4), grouped by area. Field lengths come from the
// seed's tables. How the bounds relate is asserted by assertLimits(), which the composition root (runtime.ts)
// runs at start-up and which also runs when this file loads, so a bad edit fails every test at once.
import assert from 'node:assert/strict';

const secondMs = 1000;
const minuteMs = 60 * secondMs;
const hourMs = 60 * minuteMs;
const dayMs = 24 * hourMs;

export const limits = {
  // HTTP: what one request may carry.
  bodyBytesMax: 1024 * 1024,
  /** The router refuses longer path parameters (`id: too long`) before any route's own schema sees them. */
  pathParamLengthMax: 200,
  requestIdLengthMax: 128,
  /** A Bearer token longer than any we issue is refused as invalid without a database lookup. */
  bearerTokenLengthMax: 200,
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
  /** How long a request may run before its claim is considered abandoned. */
  idempotencyLeaseMs: minuteMs,
  idempotencyClaimAttemptsMax: 3,

  // The Cobro-Signature header (decision 140).
  /** How far a signature's timestamp may be from the service clock, either way (Stripe's default window). */
  cobroSignatureToleranceMs: 5 * minuteMs,
  /** `t=` plus a few `v1=` MACs (several while a client rotates keys); a longer header is refused unread. */
  cobroSignatureLengthMax: 400,

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
  deliveryBatchMax: 16,
  deliveryConcurrencyMax: 8,
  /** One callback POST, connect to last byte. */
  deliveryTimeoutMs: 15 * secondMs,
  /** Long enough for every row of a batch to be sent and answered before another worker may take it over. */
  deliveryLeaseMs: 90 * secondMs,
  responseExcerptBytesMax: 1024,
  deliveryErrorLengthMax: 500,
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
  /** How long a starting process waits to reach DATABASE_URL before it says it cannot (an unrouted host never refuses). */
  dbStartupConnectTimeoutMs: 10 * secondMs,
  /** A stopping server finishes its callback deliveries in flight before it gives up. */
  shutdownGraceMs: 20 * secondMs,
  /** A /metrics scrape must never hold a connection for long: a slow count fails the scrape, not the API. */
  metricsQueryTimeoutMs: 2 * secondMs,
} as const;

/** One first attempt plus one per scheduled retry. */
export const notificationAttemptsMax = limits.retryDelaysMs.length + 1;

// --- Transactions: POST /api/transaction/ (lengths from the seed's table) and the payment attempt. ---
export const transactionLimits = {
  /** The seed's "max 14 digits" as the JSON schema's integer maximum. */
  amountIntegerMax: 99_999_999_999_999,
  emailLengthMax: 50,
  orderLengthMax: 40,
  subjectLengthMax: 2000,
  urlreturnLengthMax: 200,
  urlnotifyLengthMax: 600,
  marketplaceLengthMax: 70,
  /** The merchant's event code (decision 042), as long as the event's own `event` field. */
  eventLengthMax: 40,
  /** reference §1.1: `expired` must be more than 5 minutes ahead. */
  expiryLeadMsMin: 5 * minuteMs,
  /**
   * The last instant with a four-digit UTC year: `9999-12-31 23:59:59` Santiago time is already in year 10000 UTC,
   * which the database drivers write in a form PostgreSQL refuses.
   */
  expiresAtMsMax: Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  /** How long one payment attempt holds the transaction before another may start (a crashed attempt). */
  attemptLeaseMs: 2 * minuteMs,
  /** A payer may try this many times (a declined card, a wrong CVV or bank password) before the transaction is rejected. */
  paymentAttemptsMax: 3,
  /** Webpay Plus (issue 15, decision 150): the SDK's answer timeout, the payer's trip, the lost-commit recheck, inputs. */
  acquirer: { requestTimeoutMs: 10_000, redirectLeaseMs: 10 * minuteMs, commitRecheckMs: 30_000, commerceCodeLength: 12, apiKeyLengthMax: 200, environmentUrlLengthMax: 200, tokenLengthMax: 64 },
  /** reference §1.1: the payer's browser goes to urlreturn 3 seconds after the result. */
  returnRedirectSeconds: 3,
} as const;

// --- Marketplace clients and memberships (seed "Marketplace clients", "Marketplace memberships"). ---
export const marketplaceLimits = {
  clientIdLengthMax: 20,
  emailLengthMax: 50,
  nameCreateLengthMax: 150, nameUpdateLengthMax: 50,
  phoneCreateLengthMax: 12, phoneUpdateLengthMax: 50,
  bankSbifLengthMax: 5, bankNumLengthMax: 40, bankRutLengthMax: 12,
  membershipNameLengthMax: 80,
  /** "100.00": the seed's 2 characters cannot hold 100 or decimals (decision 041). */
  percentageLengthMax: 6,
  /** The seed's "max 25" on the pairs, read as 25 clients per membership. */
  membershipClientsMax: 25,
  /** Memberships listed in one client's affiliations_details. */
  detailsPerClientMax: 200,
} as const;

// --- Subscriptions and consumption subscriptions (reference §7, §8; decision 100). ---
export const subscriptionLimits = {
  /** reference §7.2: "max 20" on the path, which no id or e-mail respects; the router's bound applies instead. */
  clientEmailLengthMax: 50, clientNameLengthMax: 80, clientRutLengthMax: 12, clientPhoneLengthMax: 20,
  clientAddressLengthMax: 200, clientCountryLengthMax: 40, clientRegionLengthMax: 120, clientCityLengthMax: 40,
  clientPostalCodeLengthMax: 10,
  /** reference §7.5: customers per page. */
  customersPerPageMax: 100,
  planNameLengthMax: 20, planDescriptionLengthMax: 1000, planUrlLengthMax: 240, planCodeLengthMax: 40,
  /** Cobro's pricing extension (decision 100). */
  planIntervalCountMax: 366, planTrialDaysMax: 3660, planRetriesMax: 10,
  /** Plans one GET /api/suplan/plans answers (the reference documents no pagination). */
  plansListedMax: 1000,
  subscriptionPlanLengthMax: 70, subscriptionClientLengthMax: 70, couponLengthMax: 50,
  /** reference §7.8: subscriptions per page of the v3 list (and of v1, whose maximum the reference leaves blank). */
  subscriptionsPerPageMax: 4000,
  logsShownMax: 500, cardsPerSubscriptionMax: 20, chargesShownMax: 1000,
  /** A day, and the margin that carries a day's end past a daylight-saving change (date filters). */
  dayMs, dstMarginMs: 3 * hourMs,
  /** reference §7.0 step 4: the card check on enrolment, CLP 50, refunded at once. */
  verificationAmountMinor: 50n,
  /** How long one enrolment attempt holds its link before another may start (a crashed attempt). */
  enrolmentLeaseMs: 2 * minuteMs,
  /** reference §7.12, §7.13: the `suscription` and `card` fields. */
  suscriptionFieldLengthMax: 60, cardFieldLengthMax: 28,
  /** reference §8.4: POST /api/sutransaction's `order`, `description` and `marketplace`. */
  chargeOrderLengthMax: 40, chargeDescriptionLengthMax: 1000, chargeMarketplaceLengthMax: 20,
  /** How long one stored-card charge holds its payment before another caller may retry it (a crashed attempt). */
  chargeLeaseMs: 2 * minuteMs,
  /** A request that finds its charge being made by another waits this many steps of this long for the result. */
  chargeWaitRoundsMax: 600, chargeWaitStepMs: 50,
} as const;

// --- Events (seed "Events"). ---
export const eventLimits = {
  codeLengthMax: 40,
  nameLengthMax: 400,
  urlLengthMax: 240,
  /** "max 7 characters" of an integer. */
  serviceSaleMinorMax: 9_999_999,
  beneficiaryEmailLengthMax: 50, beneficiaryPercentLengthMax: 6,
  /** Each beneficiary is a posting of the sale's settlement journal, which holds at most 64. */
  beneficiariesMax: 50,
  dateTextLengthMax: 19,
  payoutBatchMax: 50,
} as const;

// --- Refunds: POST /api/nullification (reference §3.1) and their dispatch to the processor. ---
export const refundLimits = {
  /** reference §3.1: `id` max 40 characters, `subject` max 200. */
  idLengthMax: 40,
  subjectLengthMax: 200,
  /** How long one dispatch holds a refund before another worker may ask the processor again (same key). */
  dispatchLeaseMs: 2 * minuteMs,
} as const;

// --- Conciliation (seed "Conciliation"; reference §10) and its CSV export. ---
export const conciliationLimits = {
  /** Seed Limits: `date_init` to `date_end` at most 30 days. */
  rangeDaysMax: 30,
  /** The transactions one report may list: a range holding more is refused (ask a shorter one), never cut short. */
  transactionsMax: 50_000,
} as const;

// --- Mall (reference §5): one payment for several stores. ---
export const mallLimits = {
  /** reference §5.2: the path id is at most 30 characters (`malld` + 25 hex). */
  idLengthMax: 30,
  emailLengthMax: 50, orderLengthMax: 40, urlreturnLengthMax: 200, urlnotifyLengthMax: 600,
  /** A store's public token or a membership token (64 hex); the transaction's `marketplace` bound. */
  merchantTokenLengthMax: 70,
  /** Stores one mall pays; each is a transaction settled on its own, all recorded in the payment's one commit. */
  linesMax: 20,
  subjectLengthMax: 2000, eventLengthMax: 40, individualOrderLengthMax: 40,
} as const;

// --- Environment variables: defaults and ranges of PORT, SETTLEMENT_DELAY_DAYS, METRICS_TOKEN (src/platform/config.ts). ---
export const configLimits = {
  portDefault: 8080, portMin: 0, portMax: 65535,
  settlementDelayDaysDefault: 1, settlementDelayDaysMin: 0, settlementDelayDaysMax: 60,
  metricsTokenLengthMin: 16, metricsTokenLengthMax: 200,
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

export const dashboardLimits = {
  /** A dashboard session lasts this long from sign-in; signing out or rotating the tokens ends it sooner. */
  sessionMs: 12 * hourMs,
  /** The largest form the dashboard accepts (sign-in, resend, clock). */
  formBytesMax: 8 * 1024,
  /** Rows on one page of a dashboard list. */
  rowsPerPage: 25,
  /** The highest page number a dashboard list opens. */
  pageNumberMax: 10_000,
  /** A search text (order or email) and a token typed into the sign-in form. */
  searchLengthMax: 255, tokenLengthMax: 200,
  /** Callbacks and attempts shown on one transaction's timeline. */
  timelineCallbacksMax: 20, timelineAttemptsMax: 500,
  /** Days the home page's charts cover, ending today. */
  chartDays: 30,
  /** Sign-in forms one client address may post in a minute (the tokens are long and random; this keeps the log quiet). */
  signInsPerMinute: 30,
} as const;

/** How the bounds relate; a bound changed alone that breaks one of these is a bug, caught before serving. */
export function assertLimits(): void {
  const l = limits;
  assert.ok(l.pageSizeDefault <= l.pageSizeMax, 'default page must fit the maximum page');
  assert.ok(l.notificationsPerPageDefault <= l.notificationsPerPageMax, 'default notifications page must fit the maximum');
  assert.ok(l.amountMinorMax === 10n ** BigInt(l.amountDigitsMax) - 1n, 'the amount bound is the seed\'s digit count');
  assert.ok(l.amountMinorMax < BigInt(Number.MAX_SAFE_INTEGER), 'amounts stay exact as JSON numbers');
  assert.ok(l.opsRequestBytesMax < l.bodyBytesMax, 'an operator request is smaller than an API body');
  assert.ok(l.opsPingTimeoutMs < l.opsCommandTimeoutMs, 'a ping answers sooner than a command');
  assert.ok(l.bancoEstadoNumLengthMax <= l.bankNumLengthMax, 'the Banco Estado bound narrows the bank account number');
  // Callbacks: a batch finishes inside its lease; a send finishes before a stopping server gives up on it; the
  // worker polls more often than the shortest retry, so a retry goes out close to when it is due.
  assert.ok(Math.ceil(l.deliveryBatchMax / l.deliveryConcurrencyMax) * l.deliveryTimeoutMs < l.deliveryLeaseMs, 'a batch must finish inside its lease');
  assert.ok(l.deliveryTimeoutMs < l.shutdownGraceMs, 'shutdown waits for a callback in flight');
  assert.ok(l.deliveryPollIntervalMs < (l.retryDelaysMs[0] ?? 0) * (1 - l.retryJitterFraction), 'the worker polls more often than the shortest retry');
  assert.ok(l.retryDelaysMs.length >= 1 && l.retryDelaysMs.every((d, i) => i === 0 || d >= l.retryDelaysMs[i - 1]!), 'retry delays never shrink');
  assert.ok(l.retryJitterFraction >= 0 && l.retryJitterFraction < 1, 'jitter keeps every delay positive');
  assert.ok(l.deliveryBatchMax <= l.dueWorkBatchMax, 'a drain takes at least one delivery batch');
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

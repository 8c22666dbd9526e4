// Every bound the service enforces, in one place (STYLE rule 4): one file per concept in this folder (http, money,
// wallet, idempotency, background, sandbox, database, process, and the business modules' groups in modules.ts),
// assembled here into `limits`. Field lengths come from the seed's tables. How the bounds relate is asserted by
// assertLimits(), which runtime.ts runs at start-up and which also runs when this file loads. Importers name this file.
import assert from 'node:assert/strict';
import { backgroundLimits } from './background.ts';
import { databaseLimits } from './database.ts';
import { fintocLimits } from './fintoc.ts';
import { requestLimits, httpLimits } from './http.ts';
import { idempotencyLimits } from './idempotency.ts';
import { moneyLimits } from './money.ts';
import {
  transactionLimits,
  marketplaceLimits,
  subscriptionLimits,
  eventLimits,
  refundLimits,
  escrowLimits,
  conciliationLimits,
  mallLimits,
  dashboardLimits,
} from './modules.ts';
import { processLimits, configLimits, dataDirLimits, assertProcessBounds } from './process.ts';
import { auditLimits, disputeLimits } from './disputes.ts';
import { sandboxLimits } from './sandbox.ts';
import { walletLimits } from './wallet.ts';
import { keyLimits, userLimits } from './keys.ts';

export {
  fintocLimits,
  transactionLimits,
  marketplaceLimits,
  subscriptionLimits,
  eventLimits,
  refundLimits,
  escrowLimits,
  conciliationLimits,
  mallLimits,
  dashboardLimits,
  keyLimits,
  userLimits,
  disputeLimits,
  auditLimits,
};
export { httpLimits, configLimits, dataDirLimits };
export { notificationAttemptsMax } from './background.ts';

export const limits = {
  ...requestLimits,
  ...moneyLimits,
  ...walletLimits,
  ...idempotencyLimits,
  ...backgroundLimits,
  ...sandboxLimits,
  ...processLimits,
  ...databaseLimits,
} as const;

/** How the bounds relate; a bound changed alone that breaks one of these is a bug, caught before serving. */
export function assertLimits(): void {
  assertRequestBounds();
  assertCallbackBounds();
  assertSandboxBounds();
  assertLedgerBounds();
  assertPaymentBounds();
  assertEnvironmentBounds();
}

/** Requests and pages: what one request may ask for fits what the service answers. */
function assertRequestBounds(): void {
  const l = limits;
  assert.ok(l.pageSizeDefault <= l.pageSizeMax, 'default page must fit the maximum page');
  // A subscription list page is read through readInChunks, which refuses a page past the largest page.
  assert.ok(
    subscriptionLimits.subscriptionsPerPageMax <= l.pageSizeMax,
    'a subscription list page must fit the largest page',
  );
  assert.ok(
    l.notificationsPerPageDefault <= l.notificationsPerPageMax,
    'default notifications page must fit the maximum',
  );
  assert.ok(
    l.amountMinorMax === 10n ** BigInt(l.amountDigitsMax) - 1n,
    "the amount bound is the seed's digit count",
  );
  assert.ok(
    l.amountMinorMax < BigInt(Number.MAX_SAFE_INTEGER),
    'amounts stay exact as JSON numbers',
  );
  assert.ok(
    l.opsRequestBytesMax < l.bodyBytesMax,
    'an operator request is smaller than an API body',
  );
  assertProcessBounds();
  assert.ok(
    l.bancoEstadoNumLengthMax <= l.bankNumLengthMax,
    'the Banco Estado bound narrows the bank account number',
  );
}

/** Callbacks and due work. */
function assertCallbackBounds(): void {
  const l = limits;
  // Callbacks: a batch (claimed while the last lane-full of the one before is in flight) is answered and recorded
  // inside its lease; a stopping server's sends end and are recorded before it gives up; retries go out when due.
  assert.ok(
    (Math.ceil(l.deliveryBatchMax / l.deliveryConcurrencyMax) + 1) * l.deliveryTimeoutMs +
      l.deliveryRecordDelayMs <
      l.deliveryLeaseMs,
    'a batch must be answered and recorded inside its lease',
  );
  assert.ok(l.deliveryAccountLanesMax < l.deliveryConcurrencyMax, 'an account leaves lanes free');
  assert.ok(l.deliveryStallTimeoutsMin <= l.deliveryAccountLanesMax, 'a hanging origin stalls');
  assert.ok(
    2 * l.deliveryStopSendsMs <= l.shutdownGraceMs,
    "a stopping worker's sends end with half the grace left to record them and close",
  );
  assert.ok(
    l.deliveryPollIntervalMs < (l.retryDelaysMs[0] ?? 0) * (1 - l.retryJitterFraction),
    'the worker polls more often than the shortest retry',
  );
  assert.ok(
    l.retryDelaysMs.length >= 1 &&
      l.retryDelaysMs.every((d, i) => i === 0 || d >= l.retryDelaysMs[i - 1]!),
    'retry delays never shrink',
  );
  assert.ok(
    l.retryJitterFraction >= 0 && l.retryJitterFraction < 1,
    'jitter keeps every delay positive',
  );
  assert.ok(l.deliveryBatchMax <= l.dueWorkBatchMax, 'a drain takes at least one delivery batch');
  assert.ok(
    l.deliveryRecordBatchMax <= l.deliveryBatchMax,
    'answers are recorded in groups of one batch',
  );
  assert.ok(
    2 * l.settlementChunkMax <= l.journalsPerPlanMax,
    "a settlement chunk's journals fit one plan",
  );
  assert.ok(
    2 * l.paymentSuccessGroupMax <= l.journalsPerPlanMax,
    "a group of successes' journals (capture and fee each) fit one statement",
  );
  assert.ok(l.dueWorkRoundsMax >= 2, "a drain can follow one handler's output into another");
}

/** Sandbox time and idempotency keys. */
function assertSandboxBounds(): void {
  const l = limits;
  // Sandbox: one advance fits the total offset; the payout schedule resolves within one advance.
  assert.ok(
    l.sandboxAdvanceMsMax <= l.sandboxOffsetMsMax,
    'one advance fits the total sandbox offset',
  );
  assert.ok(
    l.sandboxPayoutProcessingAfterMs < l.sandboxPayoutSuccessAfterMs,
    'a sandbox payout processes before it succeeds',
  );
  assert.ok(
    l.sandboxPayoutSuccessAfterMs <= l.sandboxAdvanceMsMax,
    'one advance can resolve a sandbox payout',
  );
  assert.ok(l.idempotencyTtlMs > l.deliveryLeaseMs, 'a key outlives any lease');
  // Idempotency: a claim's lease ends long before the key expires.
  assert.ok(
    l.cobroSignatureToleranceMs < l.idempotencyTtlMs,
    "a signed request cannot outlive its Idempotency-Key's replay",
  );
  assert.ok(
    l.idempotencyLeaseMs < l.idempotencyTtlMs,
    "an idempotency claim's lease is shorter than its key's life",
  );
}

/** Ledger and wallet. */
function assertLedgerBounds(): void {
  const l = limits;
  // Ledger and wallet: a split, an event's beneficiaries and a membership's clients each fit one journal.
  assert.ok(l.sharesPerSplitMax <= l.postingsPerJournalMax, 'a split fits one journal');
  assert.ok(
    eventLimits.beneficiariesMax < l.postingsPerJournalMax,
    "an event's beneficiaries fit one settlement journal",
  );
  assert.ok(
    marketplaceLimits.membershipClientsMax < l.postingsPerJournalMax,
    "a membership's clients fit one settlement journal",
  );
  assert.ok(
    l.walletBalanceMinorMax <= BigInt(Number.MAX_SAFE_INTEGER) &&
      l.amountMinorMax < l.walletBalanceMinorMax,
    'a wallet balance stays an exact JSON integer and holds any single amount',
  );
}

/** Transactions and checkout, marketplace deposits, recurring billing. */
function assertPaymentBounds(): void {
  const l = limits;
  const kept = fintocLimits.idempotencyKeyKeptMs; // a resend after Fintoc forgot its key is new (decisions 750, 785)
  assert.ok(
    fintocLimits.transferResendWindowMs + fintocLimits.transferResendAfterMs < kept &&
      fintocLimits.refundResendWindowMs + refundLimits.dispatchLeaseMs < kept,
    'Fintoc transfer and refund resends end before Fintoc may drop their idempotency key',
  );
  // Transactions and checkout: a crashed payment attempt frees the transaction before the earliest expiry.
  assert.equal(
    BigInt(transactionLimits.amountIntegerMax),
    l.amountMinorMax,
    'schema maximum matches the global amount bound',
  );
  assert.equal(
    transactionLimits.urlnotifyLengthMax,
    l.callbackUrlLengthMax,
    'urlnotify is a callback URL',
  );
  assert.ok(
    transactionLimits.attemptLeaseMs < transactionLimits.expiryLeadMsMin,
    'a crashed attempt frees the transaction before it can expire',
  );
  assert.ok(
    Number.isInteger(transactionLimits.paymentAttemptsMax) &&
      transactionLimits.paymentAttemptsMax >= 1,
    'a payer has at least one payment attempt',
  );
  assert.ok(
    transactionLimits.eventLengthMax === eventLimits.codeLengthMax,
    "a transaction's event code is an event's code",
  );
  assert.ok(l.checkoutFormBytesMax < l.bodyBytesMax, 'a checkout form is smaller than an API body');
  assert.ok(
    l.checkoutTokenHexLength <= l.checkoutFieldLengthMax,
    'the link token fits the checkout form field',
  );
  // Marketplace deposits: a share waits, then is confirmed; both within the sandbox's one advance.
  assert.ok(
    l.clientDepositDelayMs + l.clientDepositConfirmMs <= l.sandboxAdvanceMsMax,
    'one advance can take a share to paid',
  );
  // Recurring billing (decision 101): one advance takes a declined cycle through all its retries to suspension, and
  // a billing attempt's lease (a dead worker's) runs out before the cycle's next retry is due.
  assert.ok(
    subscriptionLimits.planRetriesMax * subscriptionLimits.cycleRetryIntervalMs <=
      l.sandboxAdvanceMsMax,
    'one advance can suspend a declined cycle',
  );
  assert.ok(
    subscriptionLimits.chargeLeaseMs < subscriptionLimits.cycleRetryIntervalMs,
    'a dead billing attempt frees its cycle before the next retry',
  );
  // Fintoc (decision 745): a pending payment or an unfinished refund is asked about less often than an open session
  // or a lost dispatch, and asked about many times before Cobro gives up on it.
  assert.ok(
    fintocLimits.sessionRecheckMs < fintocLimits.intentPendingRecheckMs &&
      10 * fintocLimits.intentPendingRecheckMs < fintocLimits.intentPendingAskMsMax,
    'a pending payment is asked about less often than an open session, and many times',
  );
  assert.ok(
    refundLimits.dispatchLeaseMs < refundLimits.inProgressRecheckMs &&
      10 * refundLimits.inProgressRecheckMs < refundLimits.inProgressAskMsMax,
    'an unfinished refund is asked about after its lease, and many times',
  );
}

/** Environment ranges, HTTP and the dashboard. */
function assertEnvironmentBounds(): void {
  const l = limits;
  // Environment ranges: each default lies inside its range.
  const c = configLimits;
  assert.ok(c.portMin <= c.portDefault && c.portDefault <= c.portMax);
  assert.ok(
    c.settlementDelayDaysMin <= c.settlementDelayDaysDefault &&
      c.settlementDelayDaysDefault <= c.settlementDelayDaysMax,
  );
  assert.ok(c.metricsTokenLengthMin <= c.metricsTokenLengthMax);
  assert.ok(
    l.metricsQueryTimeoutMs < httpLimits.requestTimeoutMsDefault,
    "a scrape's queries give up before the request does",
  );
  // HTTP (decision 072).
  assert.ok(
    httpLimits.headersTimeoutMsDefault <= httpLimits.requestTimeoutMsDefault,
    'Node requires headersTimeout <= requestTimeout',
  );
  assert.ok(
    httpLimits.timeoutCheckIntervalMs < httpLimits.headersTimeoutMsDefault,
    'timeouts are checked often beside their length',
  );
  assert.ok(httpLimits.rateLimitPerMinuteDefault <= httpLimits.rateLimitPerMinuteMax);
  // Dashboard.
  assert.ok(
    dashboardLimits.formBytesMax < l.bodyBytesMax,
    'a dashboard form is smaller than an API body',
  );
  assert.ok(
    dashboardLimits.tokenLengthMax === l.bearerTokenLengthMax,
    'the sign-in form takes any token the API takes',
  );
}

assertLimits();

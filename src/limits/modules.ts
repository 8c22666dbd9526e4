// The bounds of the business modules (transactions, marketplace, subscriptions, events, refunds, conciliation,
// mall; the dashboard's are in dashboard.ts). src/limits/index.ts re-exports every group, so importers name src/limits/index.ts only, and
// assertLimits() there checks how they relate.
import assert from 'node:assert/strict';
import { minuteMs, hourMs, dayMs } from './units.ts';
import { fintocLimits } from './fintoc.ts';
import { backgroundLimits } from './background.ts';

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
  /** `expired`'s text: room for an ISO 8601 date with zone and fraction, so it is told the expected format, not `too long`. */
  expiredTextLengthMax: 40,
  /** How long one payment attempt holds the transaction before another may start (a crashed attempt). */
  attemptLeaseMs: 2 * minuteMs,
  /** A payer may try this many times (a declined card, a wrong CVV or bank password) before the transaction is rejected. */
  paymentAttemptsMax: 3,
  /** Webpay Plus (issue 15, decision 150): the SDK's answer timeout, the payer's trip, the lost-commit recheck, inputs. */
  acquirer: {
    requestTimeoutMs: 10_000,
    redirectLeaseMs: 10 * minuteMs,
    commitRecheckMs: 30_000,
    unavailableRetryAfterSeconds: 10,
    commerceCodeLength: 12,
    apiKeyLengthMax: 200,
    environmentUrlLengthMax: 200,
    tokenLengthMax: 64,
  },
} as const;

// decision 1010: the recovery reads a lost commit's INITIALIZED as "nothing committed" only this long after the commit
// was sent, well after the SDK gave up on its answer, so a commit still running at Transbank has ended.
assert.ok(
  transactionLimits.acquirer.commitRecheckMs >= 2 * transactionLimits.acquirer.requestTimeoutMs,
  "the lost-commit recheck waits twice the acquirer's answer timeout",
);

// --- Marketplace clients and memberships (seed "Marketplace clients", "Marketplace memberships"). ---
export const marketplaceLimits = {
  clientIdLengthMax: 20,
  emailLengthMax: 50,
  nameCreateLengthMax: 150,
  nameUpdateLengthMax: 50,
  phoneCreateLengthMax: 12,
  phoneUpdateLengthMax: 50,
  bankSbifLengthMax: 5,
  bankNumLengthMax: 40,
  bankRutLengthMax: 12,
  membershipNameLengthMax: 80,
  /** "100.00": the seed's 2 characters cannot hold 100 or decimals (decision 041). */
  percentageLengthMax: 6,
  /** The seed's "max 25" on the pairs, read as 25 clients per membership. */
  membershipClientsMax: 25,
  /** Memberships listed in one client's affiliations_details. */
  detailsPerClientMax: 200,
} as const;

// --- Subscriptions and consumption subscriptions (reference §7, §8; decision 100). ---
const cardRemovalsPerMinute = 60;
export const subscriptionLimits = {
  /** reference §7.2: "max 20" on the path, which no id or e-mail respects; the router's bound applies instead. */
  clientEmailLengthMax: 50,
  clientNameLengthMax: 80,
  clientRutLengthMax: 12,
  clientPhoneLengthMax: 20,
  clientAddressLengthMax: 200,
  clientCountryLengthMax: 40,
  clientRegionLengthMax: 120,
  clientCityLengthMax: 40,
  clientPostalCodeLengthMax: 10,
  /** reference §7.5: customers per page. */
  customersPerPageMax: 100,
  planNameLengthMax: 20,
  planDescriptionLengthMax: 1000,
  planUrlLengthMax: 240,
  planCodeLengthMax: 40,
  /** Cobro's pricing extension (decision 100). */
  planIntervalCountMax: 366,
  planTrialDaysMax: 3660,
  planRetriesMax: 10,
  /** Plans one GET /api/suplan/plans answers (the reference documents no pagination). */
  plansListedMax: 1000,
  subscriptionPlanLengthMax: 70,
  subscriptionClientLengthMax: 70,
  couponLengthMax: 50,
  /** reference §7.8: subscriptions per page of the v3 list (and of v1, whose maximum the reference leaves blank). */
  subscriptionsPerPageMax: 4000,
  logsShownMax: 500,
  cardsPerSubscriptionMax: 20,
  chargesShownMax: 1000,
  /** A day, and the margin that carries a day's end past a daylight-saving change (date filters). */
  dayMs,
  dstMarginMs: 3 * hourMs,
  /** reference §7.0 step 4: the card check on enrolment, CLP 50, refunded at once. */
  verificationAmountMinor: 50n,
  /** How long one enrolment attempt holds its link before another may start (a crashed attempt). */
  enrolmentLeaseMs: 2 * minuteMs,
  /** reference §7.12, §7.13: the `suscription` and `card` fields. */
  suscriptionFieldLengthMax: 60,
  cardFieldLengthMax: 28,
  /** reference §8.4: POST /api/sutransaction's `order` and `description`; its `marketplace` is bounded as a transaction's (decision 106). */
  chargeOrderLengthMax: 40,
  chargeDescriptionLengthMax: 1000,
  /**
   * How long a billing cycle's stored-card charge holds its payment before another worker may retry it (a crashed
   * attempt). A charge a request makes holds it for the request's IDEMPOTENCY_LEASE_MS instead (stored-charge.ts).
   */
  chargeLeaseMs: 2 * minuteMs,
  /** A request that finds its charge being made by another waits this many steps of this long for the result. */
  chargeWaitRoundsMax: 600,
  chargeWaitStepMs: 50,
  /**
   * Recurring billing (decision 101): retry k of a declined cycle is due at the cycle's due time plus k of these,
   * so the schedule never depends on when a worker runs; the plan's `retries_max` (at most planRetriesMax) decides
   * how many before the subscription is suspended.
   */
  cycleRetryIntervalMs: 2 * dayMs,
  /** Cycles that fell due while a subscription was suspended, charged at once when a new card reactivates it. */
  overdueCyclesCollectedMax: 400,
  /**
   * A card's Oneclick inscription deleted at Transbank once no subscription can charge it (decision 990): the first
   * retry waits this long (past the acquirer's timeout, so a try still at Transbank is never taken twice), each later
   * one twice the last up to cardRemovalRetryMsMax, and after cardRemovalTriesMax refusals by Transbank (decision
   * 1105 counts them apart from busy tries) it is given up and logged.
   */
  cardRemovalRetryFirstMs: minuteMs,
  cardRemovalRetryMsMax: 6 * hourMs,
  cardRemovalTriesMax: 8,
  /**
   * Transbank answering busy (429, or 5xx: decision 1065) or not at all (a timeout, a reset: decision 1105; a
   * request that never reached it, its connection refused or its name not resolved: decision 1210) is retried with
   * the same backoff without spending one of cardRemovalTriesMax; a removal is given up once this many of its tries
   * were busy (about 4.3 days of them, the last ones 256 minutes apart: the backoff stops doubling after
   * cardRemovalTriesMax doublings), whatever its refusals.
   */
  cardRemovalBusyTriesMax: 32,
  /**
   * Transbank deletes one process sends at most a minute (decision 1065), so a backlog (migration 0830's, or many
   * subscriptions ending at once) never crowds the commerce code's live charges; each process running the due work
   * sends its own. The due-work worker's beats are at least dueWorkIntervalMs apart, and it claims
   * cardRemovalsPerBeatMax a beat.
   */
  cardRemovalsPerMinuteMax: cardRemovalsPerMinute,
  cardRemovalsPerBeatMax: (cardRemovalsPerMinute * backgroundLimits.dueWorkIntervalMs) / minuteMs,
  /** Removals one due-work call sends (each a Transbank call). */
  cardRemovalBatchMax: 20,
  /** Characters of Transbank's failure kept on a removal (`last_error`) for the operator. */
  cardRemovalErrorLengthMax: 500,
  /**
   * An Oneclick inscription's finish (decision 990): how long one return holds it (Transbank's finish, the card's
   * record, maybe a delete) before a reload may take it over, and how long a second return of the same TBK_TOKEN
   * waits for the first one's outcome, in steps.
   */
  inscriptionFinishLeaseMs: 2 * minuteMs,
  inscriptionWaitRoundsMax: 600,
  inscriptionWaitStepMs: 50,
  /** Live cards of the client read to find another live subscription still charging the same inscription. */
  cardRemovalSharedScanMax: 1000,
} as const;

// decision 1065: card removals are paced by a whole number a beat, at least one, so the worker sends exactly the rate;
// Transbank busy is allowed more tries than a refusal.
assert.ok(
  Number.isInteger(subscriptionLimits.cardRemovalsPerBeatMax) &&
    subscriptionLimits.cardRemovalsPerBeatMax >= 1 &&
    subscriptionLimits.cardRemovalsPerBeatMax <= subscriptionLimits.cardRemovalBatchMax &&
    subscriptionLimits.cardRemovalTriesMax < subscriptionLimits.cardRemovalBusyTriesMax,
  'card removals are paced a whole number a beat, and busy answers retried past the tries',
);

// --- Events (seed "Events"). ---
export const eventLimits = {
  codeLengthMax: 40,
  nameLengthMax: 400,
  urlLengthMax: 240,
  /** "max 7 characters" of an integer. */
  serviceSaleMinorMax: 9_999_999,
  beneficiaryEmailLengthMax: 50,
  beneficiaryPercentLengthMax: 6,
  /** Each beneficiary is a posting of the sale's settlement journal, which holds at most 64. */
  beneficiariesMax: 50,
  /** `2026-12-20T23:00:00.123456789+03:00`: an ISO-8601 instant with nanoseconds and its zone (decision 755). */
  dateTextLengthMax: 35,
  /** 10000-01-01T00:00:00Z: an event's dates are instants before it, which the database stores (decision 790). */
  dateInstantMsEnd: Date.UTC(10_000, 0, 1),
  payoutBatchMax: 50,
} as const;

// --- Refunds: POST /api/nullification (reference §3.1) and their dispatch to the processor. ---
export const refundLimits = {
  /** reference §3.1: `id` max 40 characters, `subject` max 200. */
  idLengthMax: 40,
  subjectLengthMax: 200,
  /** How long one dispatch holds a refund before another worker may ask the processor again (same key). */
  dispatchLeaseMs: 2 * minuteMs,
  /**
   * A refund the processor took but has not finished (Fintoc's `created` or `in_progress`, decision 745) is asked
   * about again after this long: Fintoc executes refunds once a business day.
   */
  inProgressRecheckMs: hourMs,
  /**
   * How long Cobro keeps asking about such a refund, from its registration. Fintoc retries a refund the merchant's
   * Fintoc balance cannot cover for 5 business days and then fails it; 15 calendar days cover those with holidays.
   * At the bound Cobro stops asking and logs an error for the operator; the refund stays `complete` (its money in
   * refund clearing), and the processor's webhook still ends it.
   */
  inProgressAskMsMax: 15 * dayMs,
  /**
   * How long a refund whose answer was lost (sent, never answered) is asked again at the processor, from its first
   * dispatch on the service clock: past it the retry is not made and the refund is left unresolved for the operator
   * (decision 1026), as a Fintoc transfer looked up past its bound is (decision 992, the same 3 days). Fintoc's own
   * lookups end before it (fintocLimits.refundResendWindowMs); a Webpay retry that reads a balance it does not expect
   * (two refunds of a charge both lost, decision 1011) ends here.
   */
  lostAnswerAskMsMax: 3 * dayMs,
  /**
   * `cobro refunds record-external --reference`: the acquirer's or the operator's name for a refund made outside
   * Cobro (decision 1025), kept as the refund's code `external:<reference>`; with the subject's words it fits
   * subjectLengthMax.
   */
  externalReferenceLengthMax: 100,
} as const;

// decision 1026: a lost refund answer is left unresolved only after Fintoc's own lookups ended (its resend window,
// 6 hours) and a lease more.
assert.ok(
  refundLimits.lostAnswerAskMsMax >
    fintocLimits.refundResendWindowMs + refundLimits.dispatchLeaseMs,
  'lost refund answers are asked past the Fintoc resend window',
);

// --- Escrow (reference §2, docs/escrow.md). ---
export const escrowLimits = {
  /** reference §2.1: each id at most 30 characters; at most this many ids in one request. */
  idLengthMax: 30,
  transactionsMax: 100,
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
  emailLengthMax: 50,
  orderLengthMax: 40,
  urlreturnLengthMax: 200,
  urlnotifyLengthMax: 600,
  /** A store's public token or a membership token (64 hex); the transaction's `marketplace` bound. */
  merchantTokenLengthMax: 70,
  /** Stores one mall pays; each is a transaction settled on its own, all recorded in the payment's one commit. */
  linesMax: 20,
  subjectLengthMax: 2000,
  eventLengthMax: 40,
  individualOrderLengthMax: 40,
} as const;

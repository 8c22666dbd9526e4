// The bounds of the Fintoc integration (issue 34): its keys, the webhook body, the payout dispatch and
// reconciliation. Re-exported by src/limits/index.ts.
import { minuteMs, hourMs, dayMs } from './units.ts';

export const fintocLimits = {
  secretKeyLengthMax: 200,
  webhookSecretLengthMax: 200,
  /** A PEM RSA private key of 4096 bits is about 3.3 kB. */
  jwsKeyLengthMax: 8_192,
  accountIdLengthMax: 64,
  /** A payout's reason_rejection as the seed's field holds it. */
  reasonLengthMax: 200,
  /**
   * Fintoc's largest transfer in Chile (docs.fintoc.com, "Transfer data model": 7,000,000 CLP a transfer). A larger
   * payout goes out in the bank file instead (decision 900).
   */
  transferAmountMaxMinor: 7_000_000n,
  /** Fintoc's transfer `comment`. */
  transferCommentLengthMax: 140,
  environmentUrlLengthMax: 200,
  /** A webhook event is a few kB; Fintoc's largest objects stay far below this. */
  webhookBodyBytesMax: 256 * 1024,
  /** A transfer whose create answer was lost is asked again (same idempotency key) after this long. */
  transferResendAfterMs: 30_000,
  /**
   * Tries of one transfer after its first send whose answer was lost (decision 750): each looks the transfer up and,
   * finding none, sends it again. Past this, or past transferResendWindowMs, a try that finds none leaves the payout
   * `unresolved` for the operator.
   */
  transferRetriesMax: 5,
  /**
   * How long after its first send a transfer may be sent again. Fintoc may drop an idempotency key once it is 24 hours
   * old and then takes a resend as a new transfer: the window stays well inside that (asserted in index.ts).
   */
  transferResendWindowMs: 6 * hourMs,
  /** Fintoc's idempotency keys are kept at least this long (docs.fintoc.com, "Idempotent requests"). */
  idempotencyKeyKeptMs: dayMs,
  /**
   * A transfer Fintoc answered `pending` whose webhook has not come is looked up (Fintoc's "Retrieve a Transfer") once
   * it has waited this long, and again each time this long after (decision 992). Fintoc retries its webhooks, so the
   * lookup is the fallback for a lost one, not the usual word: a Chilean transfer is decided in minutes.
   */
  transferPendingRecheckMs: 10 * minuteMs,
  /**
   * How long after its first send a pending transfer is asked about. Past it, the payout is left `unresolved`, its
   * money held, for the operator (decision 750's way); Fintoc's webhook still ends it. Three days, as
   * movementWindowMs: by then reconcile reports its movement missing too.
   */
  transferPendingAskMsMax: 3 * dayMs,
  /** Outbound transfers read when looking for the one a lost answer made (by its metadata's payout id). */
  transferLookupMax: 1_000,
  /** The lookup reads transfers created from this long before the payout's first send (clocks differ). */
  transferLookupSlackMs: 10 * minuteMs,
  /**
   * Tries of one refund after its first dispatch whose answer was lost (decision 785): each looks the refund up in
   * Fintoc's refund list and, finding none, sends it again with the same key. Past this, or past
   * refundResendWindowMs, a try that finds none stops asking and leaves the refund `complete` for Fintoc's webhook
   * and the operator.
   */
  refundRetriesMax: 5,
  /**
   * How long after its first dispatch a refund may be sent again: well inside the 24 hours Fintoc keeps a key, after
   * which a resend would be a new refund (asserted in index.ts, with one dispatch lease of slack).
   */
  refundResendWindowMs: 6 * hourMs,
  /** Refunds read when looking for the one a lost answer made (by its metadata's nullification id). */
  refundLookupMax: 1_000,
  /** The lookup reads refunds created from this long before the refund's first dispatch (clocks differ). */
  refundLookupSlackMs: 10 * minuteMs,
  /** A checkout session Fintoc did not close when asked (decision 665) is asked again after this long. */
  sessionRecheckMs: 30_000,
  /**
   * A payment Fintoc holds `pending` (the bank has not confirmed the transfer; decision 745) is asked about again
   * after this long: Fintoc takes days, not seconds, so asking every sessionRecheckMs would only load its API.
   */
  intentPendingRecheckMs: 10 * minuteMs,
  /**
   * How long Cobro keeps asking about a pending payment, from when it first saw it pending. Fintoc validates one for
   * up to 10 days and then fails it itself (`payment_intent.failed`, `unresolved_final_status`); two days more for
   * that last answer. At the bound the try is declined and an error logged for the operator: money Fintoc reports
   * later is the decided-sale case, refunded by hand (decision 665).
   */
  intentPendingAskMsMax: 12 * dayMs,
  /**
   * Late Fintoc successes stopped after their claim (decision 1215) read from Fintoc per due-work beat: each is two
   * reads (the checkout session names the intent, the intent says its status).
   */
  lateClaimsPerBeatMax: 10,
  /** Such a late success whose read failed, or did not say `succeeded`, is read again after this long. */
  lateClaimRecheckMs: 10 * minuteMs,
  /**
   * How long after its lease ran out such a late success is still looked for; past it, only `cobro fintoc reconcile`
   * reports the money. As movementWindowMs: by then reconcile reports the movement unmatched.
   */
  lateClaimAskMsMax: 3 * dayMs,
  /** Payouts sent per due-work turn. */
  dispatchBatchMax: 50,
  /** A payout, withdrawal or received transfer with no movement after this long is reported missing. */
  movementWindowMs: 3 * dayMs,
  /** Movements read per reconciliation. */
  movementsPerRunMax: 5_000,
  /** How far back a reconciliation reads the account's movements by default. */
  reconcileLookbackMs: 7 * dayMs,
  /** The payer's trip to Fintoc's page: as long as the redirect lease. */
  sessionLeaseMs: 10 * minuteMs,
} as const;

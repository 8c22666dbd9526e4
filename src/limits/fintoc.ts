// The bounds of the Fintoc integration (issue 34): its keys, the webhook body, the payout dispatch and
// reconciliation. Re-exported by src/limits/index.ts.
import { minuteMs, dayMs } from './units.ts';

export const fintocLimits = {
  secretKeyLengthMax: 200,
  webhookSecretLengthMax: 200,
  /** A PEM RSA private key of 4096 bits is about 3.3 kB. */
  jwsKeyLengthMax: 8_192,
  accountIdLengthMax: 64,
  /** A payout's reason_rejection as the seed's field holds it. */
  reasonLengthMax: 200,
  /** Fintoc's transfer `comment`. */
  transferCommentLengthMax: 140,
  environmentUrlLengthMax: 200,
  /** A webhook event is a few kB; Fintoc's largest objects stay far below this. */
  webhookBodyBytesMax: 256 * 1024,
  /** A transfer whose create answer was lost is asked again (same idempotency key) after this long. */
  transferResendAfterMs: 30_000,
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

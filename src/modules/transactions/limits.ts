// Bounds of the transactions module. Lengths come from the seed's table for POST /api/transaction/.
import assert from 'node:assert/strict';
import { limits } from '../../limits.ts';

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
  expiryLeadMsMin: 5 * 60 * 1000,
  /**
   * The last instant with a four-digit UTC year: `9999-12-31 23:59:59` Santiago time is already in year 10000 UTC,
   * which the database drivers write in a form PostgreSQL refuses.
   */
  expiresAtMsMax: Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  /** How long one payment attempt holds the transaction before another may start (a crashed attempt). */
  attemptLeaseMs: 2 * 60 * 1000,
  /** reference §1.1: the payer's browser goes to urlreturn 3 seconds after the result. */
  returnRedirectSeconds: 3,
} as const;

assert.equal(BigInt(transactionLimits.amountIntegerMax), limits.amountMinorMax, 'schema maximum matches the global amount bound');

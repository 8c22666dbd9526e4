// One statement opens the record of an attempt's outcome (decision 557): it locks the transaction, appends the
// attempt numbered after the earlier ones when the claim is still this attempt's, and reads the account's fee rule
// for the method paid. Before, three round trips (the lock, the attempt's INSERT, the fee rule's read).
import { CompiledQuery } from 'kysely';
import type { Tx } from '../../platform/db/types.ts';
import { defaultFeeRule, type FeeRule } from './fees.ts';
import type { TransactionRow } from './repository.ts';

/**
 * $1 transaction id, $2 attempt id (the claim's), $3 payment (the method paid), $4 media, $5 outcome, $6 gateway
 * message, $7 payer message, $8 card brand, $9 card last 4, $10 payer IP, $11 the account's now. The attempt's
 * number reads the attempts before it under the row's lock: only the claim's holder gets past the WHERE.
 */
export const lockForOutcomeText = `WITH t AS (SELECT * FROM transactions WHERE id = $1 FOR UPDATE),
  a AS (
    INSERT INTO payment_attempts (id, transaction_id, number, payment, media, outcome, gateway_message, payer_message,
      card_brand, card_last4, payer_ip, created_at)
    SELECT $2::text, t.id, (SELECT COALESCE(MAX(p.number), 0) + 1 FROM payment_attempts p WHERE p.transaction_id = t.id),
      $3::integer, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::timestamptz
    FROM t WHERE t.status = 'pending' AND t.attempt_id = $2
    RETURNING number)
SELECT t.*, (SELECT number FROM a) AS cobro_attempt_number, f.percent_bp AS cobro_fee_percent_bp,
  f.fixed_minor AS cobro_fee_fixed_minor
FROM t LEFT JOIN account_fees f ON f.account_id = t.account_id AND f.payment = $3`;

export interface AttemptRecord {
  readonly transactionId: string;
  readonly attemptId: string;
  readonly payment: number;
  readonly media: string;
  readonly outcome: 'approved' | 'declined';
  readonly gatewayMessage: string;
  readonly payerMessage: string | null;
  readonly cardBrand: string | null;
  readonly cardLast4: string | null;
  readonly payerIp: string | null;
  readonly at: Date;
}

export interface LockedForOutcome {
  readonly row: TransactionRow;
  /** The attempt's number, or null when the claim is no longer this attempt's (nothing was written). */
  readonly attemptNumber: number | null;
  readonly feeRule: FeeRule;
}

type Selected = TransactionRow & {
  cobro_attempt_number: number | string | null;
  cobro_fee_percent_bp: number | null;
  cobro_fee_fixed_minor: string | bigint | null;
};

/** The locked row with the attempt's number and the fee rule; undefined when the transaction does not exist. */
export async function lockForOutcome(
  tx: Tx,
  a: AttemptRecord,
): Promise<LockedForOutcome | undefined> {
  const result = await tx.executeQuery<Selected>(
    CompiledQuery.raw(lockForOutcomeText, [
      a.transactionId,
      a.attemptId,
      a.payment,
      a.media,
      a.outcome,
      a.gatewayMessage,
      a.payerMessage,
      a.cardBrand,
      a.cardLast4,
      a.payerIp,
      a.at,
    ]),
  );
  const selected = result.rows[0];
  if (selected === undefined) return undefined;
  const { cobro_attempt_number, cobro_fee_percent_bp, cobro_fee_fixed_minor, ...row } = selected;
  return {
    row,
    attemptNumber: cobro_attempt_number === null ? null : Number(cobro_attempt_number),
    feeRule:
      cobro_fee_percent_bp === null
        ? defaultFeeRule
        : { percentBp: cobro_fee_percent_bp, fixedMinor: BigInt(cobro_fee_fixed_minor!) },
  };
}

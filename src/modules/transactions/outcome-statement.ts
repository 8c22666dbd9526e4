// One statement opens the record of attempts' outcomes (decisions 557, 615): it locks the transactions, appends each
// attempt numbered after the earlier ones when the claim is still that attempt's, and reads the account's fee rule
// for the method paid. Before, three round trips an attempt (the lock, the attempt's INSERT, the fee rule's read).
// Since decision 730 it opens a decline's record and an extended payment's; the checkout's approved payments without
// an extension append their attempts inside cobro_record_successes (success-record.ts).
import { CompiledQuery } from 'kysely';
import type { Tx } from '../../platform/db/types.ts';
import { defaultFeeRule, type FeeRule } from './fees.ts';
import type { TransactionRow } from './repository.ts';

/**
 * One array a column, an attempt an element: $1 transaction ids, $2 attempt ids (each its claim's), $3 payments (the
 * method paid), $4 media, $5 outcomes, $6 gateway messages, $7 payer messages, $8 card brands, $9 card last 4s,
 * $10 payer IPs; $11 the account's now. Its one caller (attempt-outcome.ts) sends one attempt; the arrays and the
 * rows' lock in the order of their ids are left from when groups of successes came here (decision 615, before
 * decision 730), and the text is pinned as it is. Only the claim's holder gets past the WHERE, and
 * a claim passes from one attempt to the next only by a commit, so the attempts an attempt's number counts (read in
 * the statement's snapshot) are all there is.
 */
export const lockForOutcomeText = `WITH i AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[], $5::text[], $6::text[], $7::text[],
      $8::text[], $9::text[], $10::text[]) WITH ORDINALITY
      AS i(transaction_id, attempt_id, payment, media, outcome, gateway_message, payer_message, card_brand,
        card_last4, payer_ip, ord)),
  t AS (SELECT * FROM transactions WHERE id IN (SELECT transaction_id FROM i) ORDER BY id FOR UPDATE),
  a AS (
    INSERT INTO payment_attempts (id, transaction_id, number, payment, media, outcome, gateway_message, payer_message,
      card_brand, card_last4, payer_ip, created_at)
    SELECT i.attempt_id, t.id, (SELECT COALESCE(MAX(p.number), 0) + 1 FROM payment_attempts p WHERE p.transaction_id = t.id),
      i.payment, i.media, i.outcome, i.gateway_message, i.payer_message, i.card_brand, i.card_last4, i.payer_ip,
      $11::timestamptz
    FROM i JOIN t ON t.id = i.transaction_id WHERE t.status = 'pending' AND t.attempt_id = i.attempt_id
    RETURNING id, number)
SELECT t.*, i.ord AS cobro_ord, a.number AS cobro_attempt_number, f.percent_bp AS cobro_fee_percent_bp,
  f.fixed_minor AS cobro_fee_fixed_minor
FROM i JOIN t ON t.id = i.transaction_id LEFT JOIN a ON a.id = i.attempt_id
  LEFT JOIN account_fees f ON f.account_id = t.account_id AND f.payment = i.payment
ORDER BY i.ord`;

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
}

export interface LockedForOutcome {
  readonly row: TransactionRow;
  /** The attempt's number, or null when the claim is no longer this attempt's (nothing was written). */
  readonly attemptNumber: number | null;
  readonly feeRule: FeeRule;
}

type Selected = TransactionRow & {
  cobro_ord: number | string;
  cobro_attempt_number: number | string | null;
  cobro_fee_percent_bp: number | null;
  cobro_fee_fixed_minor: string | bigint | null;
};

/**
 * Each attempt's locked row with its number and the fee rule, in the order given; undefined for an attempt whose
 * transaction does not exist.
 */
export async function lockForOutcomes(
  tx: Tx,
  records: readonly AttemptRecord[],
  at: Date,
): Promise<(LockedForOutcome | undefined)[]> {
  const column = <T>(pick: (r: AttemptRecord) => T): T[] => records.map(pick);
  const result = await tx.executeQuery<Selected>(
    CompiledQuery.raw(lockForOutcomeText, [
      column((r) => r.transactionId),
      column((r) => r.attemptId),
      column((r) => r.payment),
      column((r) => r.media),
      column((r) => r.outcome),
      column((r) => r.gatewayMessage),
      column((r) => r.payerMessage),
      column((r) => r.cardBrand),
      column((r) => r.cardLast4),
      column((r) => r.payerIp),
      at,
    ]),
  );
  const byOrdinal = new Map(result.rows.map((selected) => [Number(selected.cobro_ord), selected]));
  return records.map((_, index) => {
    const selected = byOrdinal.get(index + 1);
    if (selected === undefined) return undefined;
    const { cobro_ord, cobro_attempt_number, cobro_fee_percent_bp, cobro_fee_fixed_minor, ...row } =
      selected;
    return {
      row,
      attemptNumber: cobro_attempt_number === null ? null : Number(cobro_attempt_number),
      feeRule:
        cobro_fee_percent_bp === null
          ? defaultFeeRule
          : { percentBp: cobro_fee_percent_bp, fixedMinor: BigInt(cobro_fee_fixed_minor!) },
    };
  });
}

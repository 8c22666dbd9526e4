// The payment's own statements, each written whole in one module (issue 38, decisions 555 and 557): their full text
// is asserted here (they run through every checkout test: test/checkout/checkout-pay.test.ts and the others).
import { describe, expect, it } from 'vitest';
import {
  claimAttemptGuardedText,
  claimAttemptText,
} from '../../../src/modules/transactions/claim-statement.ts';
import { lockForOutcomeText } from '../../../src/modules/transactions/outcome-statement.ts';

const claim = `UPDATE transactions t SET attempt_id = $1, attempt_lease_until = $2, updated_at = $3
  WHERE t.id = $4 AND t.account_id = $5 AND t.status = 'pending'
    AND (t.attempt_lease_until IS NULL OR t.attempt_lease_until <= $3)
    AND (t.expires_at IS NULL OR t.expires_at > $3)
  RETURNING t.*`;

const claimGuarded = `UPDATE transactions t SET attempt_id = $1, attempt_lease_until = $2, updated_at = $3
  WHERE t.id = $4 AND t.account_id = $5 AND t.status = 'pending'
    AND (t.attempt_lease_until IS NULL OR t.attempt_lease_until <= $3)
    AND (t.expires_at IS NULL OR t.expires_at > $3)
    AND NOT EXISTS (
      SELECT 1 FROM processor_sessions s WHERE s.transaction_id = t.id AND s.state = 'committing')
  RETURNING t.*`;

const lockForOutcome = `WITH i AS (
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

describe("a payment's statements", () => {
  it('claims a payable transaction in one UPDATE whose WHERE holds every check of the locked path', () => {
    expect(claimAttemptText).toBe(claim);
    expect(claimAttemptGuardedText).toBe(claimGuarded);
  });
  it("locks the rows, appends each claim holder's attempt and reads the fee rules in one statement", () => {
    expect(lockForOutcomeText).toBe(lockForOutcome);
  });
});

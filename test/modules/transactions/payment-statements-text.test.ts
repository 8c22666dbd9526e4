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

const lockForOutcome = `WITH t AS (SELECT * FROM transactions WHERE id = $1 FOR UPDATE),
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

describe("a payment's statements", () => {
  it('claims a payable transaction in one UPDATE whose WHERE holds every check of the locked path', () => {
    expect(claimAttemptText).toBe(claim);
    expect(claimAttemptGuardedText).toBe(claimGuarded);
  });
  it("locks the row, appends the claim holder's attempt and reads the fee rule in one statement", () => {
    expect(lockForOutcomeText).toBe(lockForOutcome);
  });
});

// The payment's own statements, each written whole in one module (issue 38, decisions 555 and 557): their full text
// is asserted here (they run through every checkout test: test/checkout/checkout-pay.test.ts and the others).
import { describe, expect, it } from 'vitest';
import { claimAttemptsText } from '../../../src/modules/transactions/claim-statement.ts';
import { lockForOutcomeText } from '../../../src/modules/transactions/outcome-statement.ts';
import { markPaidText } from '../../../src/modules/transactions/success-statement.ts';
import { recordSuccessesText } from '../../../src/modules/transactions/success-record.ts';

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

const markPaid = `WITH v AS (
    SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
      $8::text[], $9::integer[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::text[],
      $15::timestamptz[])
      AS v(id, paid_payment, media, authorization_code, card_brand, card_last4, card_token, card_type, installments,
        payer_identifier, payer_bank, payer_ip, fee_minor, deposit_date, settle_due_at)),
  paid AS (
    UPDATE transactions t SET status = 'success', updated_at = $16::timestamptz, ended_at = $16::timestamptz,
      attempt_id = NULL, attempt_lease_until = NULL, charge_key = t.attempt_id, paid_payment = v.paid_payment,
      media = v.media, authorization_code = v.authorization_code, card_brand = v.card_brand,
      card_last4 = v.card_last4, card_token = v.card_token, card_type = v.card_type, installments = v.installments,
      payer_identifier = v.payer_identifier, payer_bank = v.payer_bank, payer_ip = v.payer_ip,
      gateway_message = 'successful transaction', fee_minor = v.fee_minor, deposit_date = v.deposit_date,
      settle_due_at = v.settle_due_at
    FROM v WHERE t.id = v.id
    RETURNING t.*),
  callbacks AS (
    INSERT INTO notifications (id, account_id, url, event_type, payload, body, status, attempts, next_attempt_at,
      created_at, updated_at)
    SELECT c.id, c.account_id, c.url, c.event_type, c.body::jsonb, c.body, c.status, c.attempts,
      $16::timestamptz, $16::timestamptz, $16::timestamptz
    FROM unnest($17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::integer[])
      AS c(id, account_id, url, event_type, body, status, attempts))
SELECT * FROM paid`;

describe("a payment's statements", () => {
  it("claims payable transactions by one call of migration 0440's function, whose WHEREs hold every check of the locked path", () => {
    expect(claimAttemptsText).toBe('SELECT * FROM cobro_claim_attempts($1, $2, $3, $4, $5, $6)');
  });
  it("locks the rows, appends each claim holder's attempt and reads the fee rules in one statement", () => {
    expect(lockForOutcomeText).toBe(lockForOutcome);
  });
  it("records the checkout's approved payments, their callbacks and their journals by one call of migration 0520's function", () => {
    expect(recordSuccessesText).toBe(
      'SELECT * FROM cobro_record_successes($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)',
    );
  });
  it('pays every row of a group and writes their callbacks in one statement', () => {
    expect(markPaidText).toBe(markPaid);
  });
});

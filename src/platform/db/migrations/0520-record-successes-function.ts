import { sql, type Kysely } from 'kysely';

// Decision 730: the checkout's approved payments (alone or a group of one account's, decision 615) are recorded by
// one call of this function: one statement, atomic by itself, so no BEGIN and no COMMIT either. In its steps:
//   1. lock the rows in the order of their ids (as every claim and group does, decision 630);
//   2. for each payment in the order given, when the row is still pending and claimed by this attempt: append the
//      attempt numbered after the earlier ones, compute the fee from the account's rule for the method paid
//      (round half up of amount x basis points / 10 000, plus the fixed part, never more than the amount: fees.ts's
//      computeFeeMinor, in integers), mark the row `success` with its approval's facts, its fee and its
//      availability, and write its `transaction.result` callback (the row built by the notifications platform,
//      passed in); a row the attempt no longer holds is answered as found, and nothing is written for it;
//   3. the ledger, for the rows paid: lock the merchant's pending settlement of each currency, in currency order
//      (the ledger's lock order, docs/ledger.md), creating it when it never moved, then find (or create) the system's
//      processor clearing and service fees, which are never locked (decision 130); post each payment's capture
//      (clearing -gross, pending settlement +gross) and its fee when there is one (pending settlement -fee, service
//      fees +fee), each pending settlement line with the running balance after it, from the balance read under the
//      lock; update each pending settlement once by the sum of its lines, asserted by cobro_running_balance
//      (decision 431) to be its last line's running balance.
// Answers one row a payment, in the order given: the row as it is now. Every journal sums to zero by its two lines;
// the CHECK constraints (amount_minor <> 0, a non-negative account never below zero) hold as for any journal.
// Created with one statement of its own, not through runSql, so its body may end lines with semicolons.
const recordFunction = `
CREATE FUNCTION cobro_record_successes(p_account_id TEXT, p_now TIMESTAMPTZ, p_deposit_date TEXT,
    p_settle_due_at TIMESTAMPTZ, p_ids TEXT[], p_attempt_ids TEXT[], p_payments INTEGER[], p_media TEXT[],
    p_authorization_codes TEXT[], p_card_brands TEXT[], p_card_last4s TEXT[], p_card_tokens TEXT[],
    p_card_types TEXT[], p_installments INTEGER[], p_payer_identifiers TEXT[], p_payer_banks TEXT[],
    p_payer_ips TEXT[], p_capture_ids TEXT[], p_fee_ids TEXT[], p_callback_ids TEXT[], p_callback_urls TEXT[],
    p_callback_event_types TEXT[], p_callback_bodies TEXT[], p_callback_statuses TEXT[],
    p_callback_attempts INTEGER[])
  RETURNS SETOF transactions LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  i INTEGER;
  k INTEGER;
  j INTEGER;
  r transactions;
  v_fee BIGINT;
  v_currency TEXT;
  v_paid INTEGER[] := '{}';
  v_paid_fees BIGINT[] := '{}';
  v_paid_grosses BIGINT[] := '{}';
  v_paid_currencies TEXT[] := '{}';
  v_currencies TEXT[] := '{}';
  v_accounts BIGINT[] := '{}';
  v_starts BIGINT[] := '{}';
  v_runs BIGINT[] := '{}';
  v_clearings BIGINT[] := '{}';
  v_fee_accounts BIGINT[] := '{}';
  v_id BIGINT;
  v_balance BIGINT;
BEGIN
  PERFORM 1 FROM transactions WHERE id = ANY(p_ids) ORDER BY id FOR UPDATE;
  FOR i IN 1 .. cardinality(p_ids) LOOP
    SELECT * INTO r FROM transactions WHERE id = p_ids[i];
    IF NOT FOUND THEN
      RAISE EXCEPTION 'transaction % vanished during an attempt', p_ids[i] USING ERRCODE = 'XX000';
    END IF;
    IF r.status = 'pending' AND r.attempt_id = p_attempt_ids[i] THEN
      IF r.account_id <> p_account_id OR r.extension IS NOT NULL THEN
        RAISE EXCEPTION 'transaction % is not a plain payment of account %', r.id, p_account_id
          USING ERRCODE = 'XX000';
      END IF;
      INSERT INTO payment_attempts (id, transaction_id, number, payment, media, outcome, gateway_message,
          payer_message, card_brand, card_last4, payer_ip, created_at)
        SELECT p_attempt_ids[i], r.id, COALESCE(MAX(p.number), 0) + 1, p_payments[i], p_media[i], 'approved',
          'successful transaction', NULL, p_card_brands[i], p_card_last4s[i], p_payer_ips[i], p_now
        FROM payment_attempts p WHERE p.transaction_id = r.id;
      v_fee := NULL;
      SELECT LEAST(r.amount_minor, (r.amount_minor * f.percent_bp + 5000) / 10000 + f.fixed_minor) INTO v_fee
        FROM account_fees f WHERE f.account_id = r.account_id AND f.payment = p_payments[i];
      v_fee := COALESCE(v_fee, 0);
      UPDATE transactions t SET status = 'success', updated_at = p_now, ended_at = p_now, attempt_id = NULL,
          attempt_lease_until = NULL, charge_key = t.attempt_id, paid_payment = p_payments[i], media = p_media[i],
          authorization_code = p_authorization_codes[i], card_brand = p_card_brands[i],
          card_last4 = p_card_last4s[i], card_token = p_card_tokens[i], card_type = p_card_types[i],
          installments = p_installments[i], payer_identifier = p_payer_identifiers[i],
          payer_bank = p_payer_banks[i], payer_ip = p_payer_ips[i], gateway_message = 'successful transaction',
          fee_minor = v_fee, deposit_date = p_deposit_date, settle_due_at = p_settle_due_at
        WHERE t.id = r.id RETURNING t.* INTO r;
      IF p_callback_ids[i] IS NOT NULL THEN
        INSERT INTO notifications (id, account_id, url, event_type, payload, body, status, attempts,
            next_attempt_at, created_at, updated_at)
          VALUES (p_callback_ids[i], r.account_id, p_callback_urls[i], p_callback_event_types[i],
            p_callback_bodies[i]::jsonb, p_callback_bodies[i], p_callback_statuses[i], p_callback_attempts[i],
            p_now, p_now, p_now);
      END IF;
      v_paid := v_paid || i;
      v_paid_fees := v_paid_fees || v_fee;
      v_paid_grosses := v_paid_grosses || r.amount_minor;
      v_paid_currencies := v_paid_currencies || r.currency;
      IF NOT r.currency = ANY(v_currencies) THEN
        v_currencies := v_currencies || r.currency;
      END IF;
    END IF;
    RETURN NEXT r;
  END LOOP;
  IF cardinality(v_paid) = 0 THEN
    RETURN;
  END IF;

  v_currencies := ARRAY(SELECT c FROM unnest(v_currencies) AS c ORDER BY c COLLATE "C");
  FOREACH v_currency IN ARRAY v_currencies LOOP
    INSERT INTO ledger_accounts (owner, code, currency, balance_minor, non_negative)
      VALUES (p_account_id, 'pending_settlement', v_currency, 0, TRUE)
      ON CONFLICT (owner, code, currency) DO UPDATE SET non_negative = excluded.non_negative
      RETURNING id, balance_minor INTO v_id, v_balance;
    v_accounts := v_accounts || v_id;
    v_starts := v_starts || v_balance;
  END LOOP;
  v_runs := v_starts;
  FOREACH v_currency IN ARRAY v_currencies LOOP
    SELECT id INTO v_id FROM ledger_accounts
      WHERE owner = 'system' AND code = 'processor_clearing' AND currency = v_currency;
    IF NOT FOUND THEN
      INSERT INTO ledger_accounts (owner, code, currency, balance_minor, non_negative)
        VALUES ('system', 'processor_clearing', v_currency, 0, FALSE)
        ON CONFLICT (owner, code, currency) DO UPDATE SET non_negative = excluded.non_negative
        RETURNING id INTO v_id;
    END IF;
    v_clearings := v_clearings || v_id;
    SELECT id INTO v_id FROM ledger_accounts
      WHERE owner = 'system' AND code = 'service_fees' AND currency = v_currency;
    IF NOT FOUND THEN
      INSERT INTO ledger_accounts (owner, code, currency, balance_minor, non_negative)
        VALUES ('system', 'service_fees', v_currency, 0, TRUE)
        ON CONFLICT (owner, code, currency) DO UPDATE SET non_negative = excluded.non_negative
        RETURNING id INTO v_id;
    END IF;
    v_fee_accounts := v_fee_accounts || v_id;
  END LOOP;

  FOR k IN 1 .. cardinality(v_paid) LOOP
    i := v_paid[k];
    v_currency := v_paid_currencies[k];
    j := array_position(v_currencies, v_currency);
    INSERT INTO journal_entries (id, kind, reference, memo, created_at)
      VALUES (p_capture_ids[i], 'transaction.capture', p_ids[i], '', p_now);
    v_runs[j] := v_runs[j] + v_paid_grosses[k];
    INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
      VALUES (p_capture_ids[i], v_clearings[j], v_currency, -v_paid_grosses[k], NULL),
        (p_capture_ids[i], v_accounts[j], v_currency, v_paid_grosses[k], v_runs[j]);
    IF v_paid_fees[k] > 0 THEN
      INSERT INTO journal_entries (id, kind, reference, memo, created_at)
        VALUES (p_fee_ids[i], 'transaction.fee', p_ids[i], '', p_now);
      v_runs[j] := v_runs[j] - v_paid_fees[k];
      INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
        VALUES (p_fee_ids[i], v_accounts[j], v_currency, -v_paid_fees[k], v_runs[j]),
          (p_fee_ids[i], v_fee_accounts[j], v_currency, v_paid_fees[k], NULL);
    END IF;
  END LOOP;
  FOR j IN 1 .. cardinality(v_accounts) LOOP
    UPDATE ledger_accounts a
      SET balance_minor = cobro_running_balance(a.id, a.balance_minor + (v_runs[j] - v_starts[j]), v_runs[j])
      WHERE a.id = v_accounts[j];
  END LOOP;
END $$`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(recordFunction).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `DROP FUNCTION cobro_record_successes(TEXT, TIMESTAMPTZ, TEXT, TIMESTAMPTZ, TEXT[], TEXT[], INTEGER[], TEXT[],
        TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], INTEGER[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[],
        TEXT[], TEXT[], TEXT[], INTEGER[])`,
    )
    .execute(db);
}

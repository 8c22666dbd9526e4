// The payout's one write statement and a journal's, each written whole in one module (issue 30, decision 471):
// their full text is asserted here (the statements run through every wallet and ledger test), and its effects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  payoutGroupStatementText,
  payoutStatementText,
} from '../../../src/modules/wallet/payout-statement.ts';
import { claimAccountsText } from '../../../src/modules/wallet/payout-shared-group.ts';
import { postJournalText } from '../../../src/platform/ledger/journal-statement.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { balance, fund, payout } from './wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const payoutAlone = `WITH gate AS (
    INSERT INTO payouts ("id", "account_id", "kind", "order", "order_ext", "request_hash", "currency", "amount_minor",
      "email", "phone", "subject", "accountbank_name", "accountbank_rut", "accountbank_sbif", "accountbank_type",
      "accountbank_num", "url_notify", "additional_parameters", "status", "reason_rejection", "movement_id", "due_at",
      "created_at", "updated_at")
    VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::text, $10::text,
      $11::text, $12::text, $13::text, $14::text, $15::text, $16::text, $17::text, $18::text, $19::text, $20::text,
      $21::text, $22::timestamptz, $23::timestamptz, $24::timestamptz)
    ON CONFLICT (account_id, kind, "order") DO NOTHING
    RETURNING *),
  ledger_j AS (
    INSERT INTO journal_entries (id, kind, reference, memo, created_at)
    SELECT * FROM unnest($25::text[], $26::text[], $27::text[], $28::text[], $29::timestamptz[]) AS h(id, kind, reference, memo, created_at)
    WHERE EXISTS (SELECT 1 FROM gate)),
  ledger_u AS (
    UPDATE ledger_accounts a SET balance_minor = cobro_running_balance(a.id,
      a.balance_minor + ($36::bigint[])[array_position($35::bigint[], a.id)], ($37::bigint[])[array_position($35::bigint[], a.id)])
    WHERE a.id = ANY($35::bigint[]) AND EXISTS (SELECT 1 FROM gate)),
  ledger_p AS (
    INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    SELECT * FROM unnest($30::text[], $31::bigint[], $32::text[], $33::bigint[], $34::bigint[]) AS p(journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    WHERE EXISTS (SELECT 1 FROM gate)),
  movements AS (
    INSERT INTO wallet_movements (id, account_id, currency, "order", subject, income_expense, status, amount_minor,
      balance_after_minor, origin_liquidation, kind, reference, journal_id, created_at)
    SELECT v.id, g.account_id, g.currency, g."order", g.subject, v.income_expense, v.status, v.amount_minor,
      v.balance_after_minor, NULL, v.kind, g.id, v.journal_id, g.created_at
    FROM unnest($38::text[], $39::text[], $40::text[], $41::bigint[], $42::bigint[], $43::text[], $44::text[])
      WITH ORDINALITY AS v(id, income_expense, status, amount_minor, balance_after_minor, kind, journal_id, n)
    CROSS JOIN gate AS g
    ORDER BY v.n),
  audit AS (
    SELECT cobro_audit_append(g.account_id, $45::text[], $46::text[], $47::text[], $48::text[], $49::text[],
      $50::text[], $51::timestamptz[]) FROM gate AS g)
SELECT gate.* FROM gate, audit`;

const payoutGroupRows = `WITH gates AS (
    INSERT INTO payouts ("id", "account_id", "kind", "order", "order_ext", "request_hash", "currency", "amount_minor",
      "email", "phone", "subject", "accountbank_name", "accountbank_rut", "accountbank_sbif", "accountbank_type",
      "accountbank_num", "url_notify", "additional_parameters", "status", "reason_rejection", "movement_id", "due_at",
      "created_at", "updated_at")
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[],
      $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
      $18::text[], $19::text[], $20::text[], $21::text[], $22::timestamptz[], $23::timestamptz[], $24::timestamptz[])
    RETURNING *),
  ledger_j AS (
    INSERT INTO journal_entries (id, kind, reference, memo, created_at)
    SELECT * FROM unnest($25::text[], $26::text[], $27::text[], $28::text[], $29::timestamptz[]) AS h(id, kind, reference, memo, created_at)),
  ledger_u AS (
    UPDATE ledger_accounts a SET balance_minor = cobro_running_balance(a.id,
      a.balance_minor + ($36::bigint[])[array_position($35::bigint[], a.id)], ($37::bigint[])[array_position($35::bigint[], a.id)])
    WHERE a.id = ANY($35::bigint[])),
  ledger_p AS (
    INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    SELECT * FROM unnest($30::text[], $31::bigint[], $32::text[], $33::bigint[], $34::bigint[]) AS p(journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)),
  movements AS (
    INSERT INTO wallet_movements (id, account_id, currency, "order", subject, income_expense, status, amount_minor,
      balance_after_minor, origin_liquidation, kind, reference, journal_id, created_at)
    SELECT v.id, g.account_id, g.currency, g."order", g.subject, v.income_expense, v.status, v.amount_minor,
      v.balance_after_minor, NULL, v.kind, g.id, v.journal_id, g.created_at
    FROM unnest($38::text[], $39::text[], $40::text[], $41::text[], $42::bigint[], $43::bigint[], $44::text[], $45::text[])
      WITH ORDINALITY AS v(row_id, id, income_expense, status, amount_minor, balance_after_minor, kind, journal_id, n)
    JOIN gates AS g ON g.id = v.row_id
    ORDER BY v.n),
  audit AS (
    SELECT cobro_audit_append_chains($46::text[], $47::text[], $48::text[], $49::text[],
      $50::text[], $51::text[], $52::text[], $53::timestamptz[]) AS chains)
SELECT gates.* FROM gates, audit`;

const payoutGroupIds = `WITH gates AS (
    INSERT INTO payouts ("id", "account_id", "kind", "order", "order_ext", "request_hash", "currency", "amount_minor",
      "email", "phone", "subject", "accountbank_name", "accountbank_rut", "accountbank_sbif", "accountbank_type",
      "accountbank_num", "url_notify", "additional_parameters", "status", "reason_rejection", "movement_id", "due_at",
      "created_at", "updated_at")
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[],
      $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
      $18::text[], $19::text[], $20::text[], $21::text[], $22::timestamptz[], $23::timestamptz[], $24::timestamptz[])
    RETURNING *),
  ledger_j AS (
    INSERT INTO journal_entries (id, kind, reference, memo, created_at)
    SELECT * FROM unnest($25::text[], $26::text[], $27::text[], $28::text[], $29::timestamptz[]) AS h(id, kind, reference, memo, created_at)),
  ledger_u AS (
    UPDATE ledger_accounts a SET balance_minor = cobro_running_balance(a.id,
      a.balance_minor + ($36::bigint[])[array_position($35::bigint[], a.id)], ($37::bigint[])[array_position($35::bigint[], a.id)])
    WHERE a.id = ANY($35::bigint[])),
  ledger_p AS (
    INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    SELECT * FROM unnest($30::text[], $31::bigint[], $32::text[], $33::bigint[], $34::bigint[]) AS p(journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)),
  movements AS (
    INSERT INTO wallet_movements (id, account_id, currency, "order", subject, income_expense, status, amount_minor,
      balance_after_minor, origin_liquidation, kind, reference, journal_id, created_at)
    SELECT v.id, g.account_id, g.currency, g."order", g.subject, v.income_expense, v.status, v.amount_minor,
      v.balance_after_minor, NULL, v.kind, g.id, v.journal_id, g.created_at
    FROM unnest($38::text[], $39::text[], $40::text[], $41::text[], $42::bigint[], $43::bigint[], $44::text[], $45::text[])
      WITH ORDINALITY AS v(row_id, id, income_expense, status, amount_minor, balance_after_minor, kind, journal_id, n)
    JOIN gates AS g ON g.id = v.row_id
    ORDER BY v.n),
  audit AS (
    SELECT cobro_audit_append_chains($46::text[], $47::text[], $48::text[], $49::text[],
      $50::text[], $51::text[], $52::text[], $53::timestamptz[]) AS chains)
SELECT gates.id FROM gates, audit`;

const claimAccounts = `WITH account_rows AS (
    SELECT id FROM accounts WHERE id = ANY($1::text[]) FOR KEY SHARE SKIP LOCKED),
  head_rows AS (
    SELECT chain FROM audit_heads WHERE chain = ANY($1::text[]) FOR UPDATE SKIP LOCKED)
SELECT a.id FROM account_rows AS a
WHERE a.id IN (SELECT chain FROM head_rows) OR NOT EXISTS (SELECT 1 FROM audit_heads AS h WHERE h.chain = a.id)`;

const journalAlone = `WITH ledger_j AS (
    INSERT INTO journal_entries (id, kind, reference, memo, created_at)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS h(id, kind, reference, memo, created_at)),
  ledger_u AS (
    UPDATE ledger_accounts a SET balance_minor = cobro_running_balance(a.id,
      a.balance_minor + ($12::bigint[])[array_position($11::bigint[], a.id)], ($13::bigint[])[array_position($11::bigint[], a.id)])
    WHERE a.id = ANY($11::bigint[])),
  ledger_p AS (
    INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    SELECT * FROM unnest($6::text[], $7::bigint[], $8::text[], $9::bigint[], $10::bigint[]) AS p(journal_id, ledger_account_id, currency, amount_minor, balance_after_minor))
SELECT 1`;

describe("the money statements' text", () => {
  it("is written whole: a payout alone, a group of payouts (rows or ids), a shared group's claim, a journal alone", () => {
    expect(payoutStatementText).toBe(payoutAlone);
    expect(payoutGroupStatementText('rows')).toBe(payoutGroupRows);
    expect(payoutGroupStatementText('ids')).toBe(payoutGroupIds);
    expect(claimAccountsText).toBe(claimAccounts);
    expect(postJournalText).toBe(journalAlone);
  });

  it("writes a payout, its journals (the sandbox's immediate outcome included) and its movements", async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    for (const amount of [4321, 1000, 1500]) {
      const res = await payout(t, a, { amount, order: `statement-${amount}` });
      expect(res.statusCode, res.body).toBe(200);
    }
    const movements = await t.ctx.db
      .selectFrom('wallet_movements')
      .select(['income_expense', 'status', 'amount_minor'])
      .where('account_id', '=', a.id)
      .where('kind', 'in', ['payout', 'payout_reversal'])
      .orderBy('seq')
      .execute();
    expect(movements.map((m) => [m.income_expense, m.status, Number(m.amount_minor)])).toEqual([
      ['expense', 'current', 4321],
      ['expense', 'current', 1000],
      ['expense', 'reversed', 1500],
      ['income', 'current', 1500],
    ]);
    // 4321 reserved, 1000 paid at once, 1500 rejected at once (back to available).
    expect(await balance(t, a)).toBe(10_000 - 4321 - 1000);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

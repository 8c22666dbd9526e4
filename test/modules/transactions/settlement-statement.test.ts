// The settlement chunk's one write statement, written whole in one module (decision 561): its full text is asserted
// here, and its effects: a chunk of several sales of two accounts settles by one journal per account (the run's
// batch as its reference), one wallet movement per sale with the wallet's balance running through them, the batch's
// totals; several chunks of a run grow one batch; the ledger stays clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlementStatementText } from '../../../src/modules/transactions/settlement-statement.ts';
import { runSettlements } from '../../../src/modules/transactions/settlement.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { balanceOf, paidSale, setFee } from '../refunds/helpers.ts';
import { expectLedgerClean } from '../disputes/helpers.ts';
import { sql } from 'kysely';
import { limits } from '../../../src/limits/index.ts';
import { inTransaction } from '../../../src/platform/db/unit-of-work.ts';
import { postPaidPayment } from '../../support/paid-payment.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const statement = `WITH ledger_j AS (
    INSERT INTO journal_entries (id, kind, reference, memo, created_at)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS h(id, kind, reference, memo, created_at)),
  ledger_u AS (
    UPDATE ledger_accounts a SET balance_minor = cobro_running_balance(a.id,
      a.balance_minor + ($12::bigint[])[array_position($11::bigint[], a.id)], ($13::bigint[])[array_position($11::bigint[], a.id)])
    WHERE a.id = ANY($11::bigint[])),
  ledger_p AS (
    INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    SELECT * FROM unnest($6::text[], $7::bigint[], $8::text[], $9::bigint[], $10::bigint[]) AS p(journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)),
  batches AS (
    INSERT INTO settlement_batches (id, account_id, currency, created_at, transaction_count, gross_minor, fee_minor, net_minor)
    SELECT * FROM unnest($14::text[], $15::text[], $16::text[], $17::timestamptz[], $18::int[], $19::bigint[], $20::bigint[], $21::bigint[])
    ON CONFLICT (id) DO UPDATE SET transaction_count = settlement_batches.transaction_count + excluded.transaction_count,
      gross_minor = settlement_batches.gross_minor + excluded.gross_minor,
      fee_minor = settlement_batches.fee_minor + excluded.fee_minor,
      net_minor = settlement_batches.net_minor + excluded.net_minor),
  settled AS (
    UPDATE transactions t SET settled_at = s.at, updated_at = s.at, settlement_batch_id = s.batch_id
    FROM unnest($22::text[], $23::text[], $24::timestamptz[]) AS s(id, batch_id, at)
    WHERE t.id = s.id AND t.settled_at IS NULL
    RETURNING t.id)
INSERT INTO wallet_movements (id, account_id, currency, "order", subject, income_expense, status, amount_minor,
  balance_after_minor, origin_liquidation, kind, reference, journal_id, created_at)
SELECT m.id, m.account_id, m.currency, m."order", m.subject, m.income_expense, 'current', m.amount_minor,
  m.balance_after_minor, m.sale_id, m.kind, m.sale_id, m.journal_id, m.at
FROM unnest($25::text[], $26::text[], $27::text[], $28::text[], $29::text[], $30::text[], $31::bigint[], $32::bigint[],
  $33::text[], $34::text[], $35::text[], $36::timestamptz[])
  WITH ORDINALITY AS m(id, account_id, currency, "order", subject, income_expense, amount_minor, balance_after_minor,
    kind, sale_id, journal_id, at, n)
ORDER BY m.n`;

describe('the settlement chunk statement', () => {
  it('is written whole in settlement-statement.ts', () => {
    expect(settlementStatementText).toBe(statement);
  });

  it('settles a chunk by one journal per account and batch, with a movement per sale', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    await setFee(t, a, '0');
    await setFee(t, b, '0');
    const sales = [
      await paidSale(t, a, 1_000, 'a1'),
      await paidSale(t, b, 5_000, 'b1'),
      await paidSale(t, a, 2_000, 'a2'),
      await paidSale(t, a, 3_000, 'a3'),
    ];
    // Due in this order, so each call claims the oldest first.
    for (const [i, id] of sales.entries())
      await t.ctx.db
        .updateTable('transactions')
        .set({ settle_due_at: new Date(i * 1_000) })
        .where('id', '=', id)
        .execute();
    // Three runs: a's first two sales, a's third, then b's: each run opens its own batches.
    expect(await runSettlements(t.ctx, { limit: 2, accountId: a.id })).toBe(2);
    expect(await runSettlements(t.ctx, { limit: 5, accountId: a.id })).toBe(1);
    expect(await runSettlements(t.ctx, { limit: 5 })).toBeGreaterThanOrEqual(1);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(6_000n);
    expect(await balanceOf(t, b.id, 'wallet_available')).toBe(5_000n);
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);

    const settled = await t.ctx.db
      .selectFrom('transactions')
      .select(['id', 'settlement_batch_id'])
      .where('id', 'in', sales)
      .execute();
    const batchOf = new Map(settled.map((r) => [r.id, r.settlement_batch_id]));
    expect(batchOf.get(sales[0]!)).toBe(batchOf.get(sales[2]!));
    expect(batchOf.get(sales[3]!)).not.toBe(batchOf.get(sales[0]!));
    const first = await t.ctx.db
      .selectFrom('settlement_batches')
      .selectAll()
      .where('id', '=', batchOf.get(sales[0]!)!)
      .executeTakeFirstOrThrow();
    expect(first).toMatchObject({ transaction_count: 2 });
    expect(BigInt(first.gross_minor)).toBe(3_000n);

    const journals = await t.ctx.db
      .selectFrom('journal_entries')
      .select(['id', 'reference'])
      .where('kind', '=', 'transaction.settlement')
      .where('reference', '=', first.id)
      .execute();
    expect(journals).toHaveLength(1);
    const movements = await t.ctx.db
      .selectFrom('wallet_movements')
      .select(['reference', 'amount_minor', 'balance_after_minor', 'journal_id', 'kind'])
      .where('account_id', '=', a.id)
      .orderBy('seq')
      .execute();
    expect(
      movements.map((m) => [m.reference, BigInt(m.amount_minor), BigInt(m.balance_after_minor)]),
    ).toEqual([
      [sales[0], 1_000n, 1_000n],
      [sales[2], 2_000n, 3_000n],
      [sales[3], 3_000n, 6_000n],
    ]);
    expect(movements[0]!.journal_id).toBe(journals[0]!.id);
    expect(movements[1]!.journal_id).toBe(journals[0]!.id);
    await expectLedgerClean(t);
  });

  it('grows one batch over the chunks of a run bigger than settlementChunkMax', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    const sale = await paidSale(t, a, 10, 'seed');
    const copies = limits.settlementChunkMax + 10;
    // Copies of one paid sale (fresh ids and keys), and their nets in pending settlement.
    await sql`INSERT INTO transactions SELECT (jsonb_populate_record(t, jsonb_build_object(
        'id', 'trx' || lpad(g::text, 17, '0'), 'order', 'copy-' || g, 'payment_key', 'pk' || g,
        'number', 900000000 + g, 'token', 'tk' || g, 'transaction_key', 'tk' || g))).*
      FROM transactions t, generate_series(1, ${copies}) g WHERE t.id = ${sale}`.execute(t.ctx.db);
    await inTransaction(t.ctx.db, (tx) =>
      postPaidPayment(tx, {
        accountId: a.id,
        transactionId: 'copies',
        currency: 'CLP',
        grossMinor: BigInt(copies * 10),
        feeMinor: 0n,
        at: t.clock.now(),
      }),
    );
    await t.ctx.db
      .updateTable('transactions')
      .set({ settle_due_at: new Date(0) })
      .where('account_id', '=', a.id)
      .execute();
    expect(await runSettlements(t.ctx, { limit: copies + 5, accountId: a.id })).toBe(copies + 1);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(BigInt((copies + 1) * 10));
    const batches = await t.ctx.db
      .selectFrom('settlement_batches')
      .selectAll()
      .where('account_id', '=', a.id)
      .execute();
    expect(batches).toHaveLength(1);
    expect(batches[0]).toMatchObject({ transaction_count: copies + 1 });
    expect(BigInt(batches[0]!.net_minor)).toBe(BigInt((copies + 1) * 10));
    const journals = await t.ctx.db
      .selectFrom('journal_entries')
      .select('id')
      .where('reference', '=', batches[0]!.id)
      .execute();
    expect(journals).toHaveLength(2);
    await expectLedgerClean(t);
  });

  it('commits a chunk whole or not at all: a chunk that fails settles none of its sales, the next run each once', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    const sales = [await paidSale(t, a, 1_000, 'c1'), await paidSale(t, a, 2_000, 'c2')];
    // The second sale claims more than its account's pending settlement holds: the chunk's plan refuses it.
    await t.ctx.db
      .updateTable('transactions')
      .set({ amount_minor: 9_000n, settle_due_at: new Date(0) })
      .where('id', '=', sales[1]!)
      .execute();
    await t.ctx.db
      .updateTable('transactions')
      .set({ settle_due_at: new Date(0) })
      .where('id', '=', sales[0]!)
      .execute();
    await expect(runSettlements(t.ctx, { limit: 10, accountId: a.id })).rejects.toThrow(
      /would go negative/,
    );
    const unsettled = await t.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('id', 'in', sales)
      .where('settled_at', 'is', null)
      .execute();
    expect(unsettled).toHaveLength(2);
    const movements = await t.ctx.db
      .selectFrom('wallet_movements')
      .select('id')
      .where('account_id', '=', a.id)
      .execute();
    expect(movements).toHaveLength(0);
    await expectLedgerClean(t);

    await t.ctx.db
      .updateTable('transactions')
      .set({ amount_minor: 2_000n })
      .where('id', '=', sales[1]!)
      .execute();
    expect(await runSettlements(t.ctx, { limit: 10, accountId: a.id })).toBe(2);
    expect(await runSettlements(t.ctx, { limit: 10, accountId: a.id })).toBe(0);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(3_000n);
    await expectLedgerClean(t);
  });
});

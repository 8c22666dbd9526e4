// Every settlement run records a batch per account and currency it settled, and each settled transaction names it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { accountsSetFee } from '../../../src/cli/commands/accounts-fee.ts';
import { runSettlements } from '../../../src/modules/transactions/settlement.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { payByCard } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const batchesOf = (accountId: string) =>
  t.ctx.db
    .selectFrom('settlement_batches')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();

describe('settlement batches', () => {
  it('records one batch per run for an account and currency, with count and totals, named by each settled transaction', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    await accountsSetFee.run(t.ctx, {
      values: { payment: '1', percent: '1.00', fixed: '10' },
      positionals: [a.id],
    });
    const paid = [
      (await payByCard(t, a, { amount: 10_000 })).created.id,
      (await payByCard(t, a, { amount: 2_500 })).created.id,
      (await payByCard(t, b, { amount: 700 })).created.id,
    ];
    t.clock.advanceMs(1000);
    expect(await runSettlements(t.ctx, { limit: 100 })).toBe(3);

    const [batchA, ...moreA] = await batchesOf(a.id);
    expect(moreA).toHaveLength(0);
    // Fees: 100 + 10 on 10 000, 25 + 10 on 2 500.
    expect(batchA).toMatchObject({
      currency: 'CLP',
      transaction_count: 2,
      gross_minor: 12_500n,
      fee_minor: 145n,
      net_minor: 12_355n,
    });
    expect(batchA!.id).toMatch(/^stb[0-9a-f]{17}$/);
    const [batchB] = await batchesOf(b.id);
    expect(batchB).toMatchObject({
      transaction_count: 1,
      gross_minor: 700n,
      fee_minor: 0n,
      net_minor: 700n,
    });
    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select(['id', 'settlement_batch_id', 'settled_at'])
      .where('id', 'in', paid)
      .execute();
    const batchOf = new Map(rows.map((r) => [r.id, r.settlement_batch_id]));
    expect(paid.map((id) => batchOf.get(id))).toEqual([batchA!.id, batchA!.id, batchB!.id]);
    expect(batchA!.created_at.getTime()).toBe(
      rows.find((r) => r.id === paid[0])!.settled_at!.getTime(),
    );

    // The wallet got exactly the batch's net: the batch matches the ledger.
    expect(
      await t.ctx.ledger.balance(t.ctx.db, {
        owner: a.id,
        code: 'wallet_available',
        currency: 'CLP',
      }),
    ).toBe(12_355n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('opens a new batch in the next run, and none for a run that settles nothing', async () => {
    const a = await t.createAccount();
    await payByCard(t, a, { amount: 1_000 });
    t.clock.advanceMs(1000);
    expect(await runSettlements(t.ctx, { limit: 100, accountId: a.id })).toBe(1);
    expect(await runSettlements(t.ctx, { limit: 100, accountId: a.id })).toBe(0);
    await payByCard(t, a, { amount: 2_000 });
    t.clock.advanceMs(1000);
    expect(await runSettlements(t.ctx, { limit: 100, accountId: a.id })).toBe(1);
    const batches = await batchesOf(a.id);
    expect(batches.map((x) => [x.transaction_count, x.net_minor])).toEqual([
      [1, 1_000n],
      [1, 2_000n],
    ]);
    expect(new Set(batches.map((x) => x.id)).size).toBe(2);
  });

  it('the sandbox clock advance settles through the same run and records its batch', async () => {
    const a = await t.createAccount();
    const { created } = await payByCard(t, a, { amount: 4_200 });
    const moved = (
      await t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { seconds: 1 } })
    ).json();
    expect(moved.processed['transaction-settlement']).toBe(1);
    const row = await t.ctx.db
      .selectFrom('transactions')
      .select('settlement_batch_id')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect((await batchesOf(a.id)).map((x) => x.id)).toEqual([row.settlement_batch_id]);
  });
});

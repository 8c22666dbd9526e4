// Decision 1040: a refund of a settled split sale (a marketplace payment, an event sale) of an escrow account takes
// the clients' or beneficiaries' parts back from their payables; when the processor refused it, giveBack gave those
// parts to the merchant's wallet (the division stays reduced, decision 116): money of a held sale, payable out
// without POST /api/escrow. They now go back to the sale's hold with the merchant's part, and the release pays them
// to the wallet once; the clients and beneficiaries are paid only what their reduced parts still hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { accountsSetEscrow } from '../../../src/cli/commands/accounts-escrow.ts';
import { createClient, createMembership } from '../marketplace/helpers.ts';
import { payByCard } from '../transactions/helpers.ts';
import { balanceOf, nullify, system } from '../refunds/helpers.ts';
import { conciliationOfDay } from '../conciliation/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function escrowAccount(): Promise<TestAccount> {
  const a = await t.createAccount();
  expect((await accountsSetEscrow.run(t.ctx, { values: {}, positionals: [a.id] })).exitCode).toBe(
    0,
  );
  return a;
}

async function paid(account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const { created, res } = await payByCard(t, account, body);
  expect(res.statusCode).toBe(200);
  const row = await t.ctx.db
    .selectFrom('transactions')
    .select(['status', 'fee_minor'])
    .where('id', '=', created.id as string)
    .executeTakeFirstOrThrow();
  // No fee: the sale's whole amount is its net, so the sums below read plainly.
  expect({ status: row.status, fee: BigInt(row.fee_minor ?? 0n) }).toEqual({
    status: 'success',
    fee: 0n,
  });
  return created.id as string;
}

async function advance(account: TestAccount, body: Record<string, number>): Promise<void> {
  const res = await t.call(account, { method: 'POST', url: '/api/sandbox/clock/advance', body });
  expect(res.statusCode).toBe(200);
}

/** A refund the processor refuses (an authorization code it never gave), answered in the request. */
async function refusedRefund(account: TestAccount, id: string, amount: number): Promise<void> {
  const { authorization_code: code } = await t.ctx.db
    .selectFrom('transactions')
    .select('authorization_code')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  await t.ctx.db
    .updateTable('transactions')
    .set({ authorization_code: 'not-one-the-processor-gave' })
    .where('id', '=', id)
    .execute();
  const res = await nullify(t, account, { id, amount });
  await t.ctx.db
    .updateTable('transactions')
    .set({ authorization_code: code })
    .where('id', '=', id)
    .execute();
  expect(res.statusCode).toBe(200);
  expect(res.json().nullify.status_nullify).toBe('reverse_deleted');
}

async function merchant(account: TestAccount) {
  const wallet = await t.call(account, { method: 'GET', url: '/api/wallet', sign: true });
  return {
    held: await balanceOf(t, account.id, 'escrow_held'),
    wallet: await balanceOf(t, account.id, 'wallet_available'),
    amountAvailable: wallet.json().amount_available as number,
  };
}

async function release(account: TestAccount, id: string, amount: number): Promise<void> {
  const released = await t.call(account, {
    method: 'POST',
    url: '/api/escrow',
    body: { transactions: [id] },
  });
  expect(released.json().transactions[0]).toMatchObject({ status: 'liquidate', amount });
}

describe('a refused refund of a settled split sale of an escrow account', () => {
  it("marketplace: the client's returned part goes to the sale's hold, released once with it", async () => {
    const a = await escrowAccount();
    const client = await createClient(t, a);
    const { token } = await createMembership(t, a, '20', [[client, '80']]);
    const id = await paid(a, { amount: 10_000, order: 'o-esr1', marketplace: token });
    await advance(a, { seconds: 1 });
    expect({
      held: await balanceOf(t, a.id, 'escrow_held'),
      client: await balanceOf(t, client, 'client_payable'),
    }).toEqual({ held: 2_000n, client: 8_000n });

    // 1,000 of the refund from the hold, 4,000 from the client's payable; the processor refuses it.
    await refusedRefund(a, id, 5_000);
    expect(await merchant(a)).toEqual({ held: 6_000n, wallet: 0n, amountAvailable: 0 });
    // The division stays reduced (decision 116): the client's refunded part is now the merchant's, held.
    expect(await balanceOf(t, client, 'client_payable')).toBe(4_000n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });

    await release(a, id, 10_000);
    expect(await merchant(a)).toEqual({ held: 0n, wallet: 6_000n, amountAvailable: 6_000 });
    // The hold counts the returned part as settled into it (decision 890's rule), so the report pays out no more
    // than it settled.
    const report = await conciliationOfDay(t, a, '2026-03-10');
    expect(report.json().conciliation[0]).toMatchObject({
      status: 'paid_out',
      amount_available: 6_000,
      amount_deposit: 6_000,
    });
    // The release moves only the merchant's money: the client is deposited its 4,000 once, never the 4,000 more.
    const bankBefore = await balanceOf(t, system, 'bank_clearing');
    await advance(a, { days: 3 });
    expect({
      client: await balanceOf(t, client, 'client_payable'),
      toBank: (await balanceOf(t, system, 'bank_clearing')) - bankBefore,
      wallet: await balanceOf(t, a.id, 'wallet_available'),
    }).toEqual({ client: 0n, toBank: 4_000n, wallet: 6_000n });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it("event: the beneficiary's returned part goes to the sale's hold, released once with it", async () => {
    const a = await escrowAccount();
    const created = await t.call(a, {
      method: 'POST',
      url: '/api/event',
      body: {
        event: 'ev-esr',
        name: 'Escrow refused',
        date_event: '2026-03-20',
        date_closing_sales: '2026-03-19 23:59:00',
        date_payment: '2026-03-22',
        service_sale: 0,
        affiliation: [['banda@example.com', 80]],
      },
    });
    expect(created.json().status, created.body).toBe('success');
    const beneficiary = created.json().affiliation[0].id as string;
    const id = await paid(a, { amount: 10_000, order: 'o-esr2', event: 'ev-esr' });
    await advance(a, { seconds: 1 });
    expect({
      held: await balanceOf(t, a.id, 'escrow_held'),
      beneficiary: await balanceOf(t, beneficiary, 'beneficiary_payable'),
    }).toEqual({ held: 2_000n, beneficiary: 8_000n });

    await refusedRefund(a, id, 5_000);
    expect(await merchant(a)).toEqual({ held: 6_000n, wallet: 0n, amountAvailable: 0 });
    expect(await balanceOf(t, beneficiary, 'beneficiary_payable')).toBe(4_000n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });

    await release(a, id, 10_000);
    expect(await merchant(a)).toEqual({ held: 0n, wallet: 6_000n, amountAvailable: 6_000 });
    // Past the payment date the beneficiary is paid its reduced part once.
    const bankBefore = await balanceOf(t, system, 'bank_clearing');
    await advance(a, { days: 14 });
    expect({
      beneficiary: await balanceOf(t, beneficiary, 'beneficiary_payable'),
      toBank: (await balanceOf(t, system, 'bank_clearing')) - bankBefore,
      wallet: await balanceOf(t, a.id, 'wallet_available'),
    }).toEqual({ beneficiary: 0n, toBank: 4_000n, wallet: 6_000n });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it("event wholly the beneficiary's: its returned part goes to the empty hold (decision 1030) all the same", async () => {
    const a = await escrowAccount();
    const created = await t.call(a, {
      method: 'POST',
      url: '/api/event',
      body: {
        event: 'ev-esr-all',
        name: 'Escrow refused, all shared',
        date_event: '2026-03-20',
        date_closing_sales: '2026-03-19 23:59:00',
        date_payment: '2026-03-22',
        service_sale: 0,
        affiliation: [['banda@example.com', 100]],
      },
    });
    expect(created.json().status, created.body).toBe('success');
    const beneficiary = created.json().affiliation[0].id as string;
    const id = await paid(a, { amount: 10_000, order: 'o-esr3', event: 'ev-esr-all' });
    await advance(a, { seconds: 1 });
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(0n);

    // Nothing of the refund is the merchant's part: all 5,000 come from the beneficiary's payable.
    await refusedRefund(a, id, 5_000);
    expect(await merchant(a)).toEqual({ held: 5_000n, wallet: 0n, amountAvailable: 0 });
    expect(await balanceOf(t, beneficiary, 'beneficiary_payable')).toBe(5_000n);
    await release(a, id, 10_000);
    expect(await merchant(a)).toEqual({ held: 0n, wallet: 5_000n, amountAvailable: 5_000 });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

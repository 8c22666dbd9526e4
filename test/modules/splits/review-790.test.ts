// Review of splits and event sales as money paths (decision 790). Each case failed before its fix; requests that move
// money go over real HTTP (the app listening on a loopback port), and every case ends with `cobro ledger verify`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { httpTo } from '../../support/over-http.ts';
import { createClient, createMembership } from '../marketplace/helpers.ts';
import { payByCard } from '../transactions/helpers.ts';
import { balanceOf, setFee, system } from '../refunds/helpers.ts';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
});

/** One request over real HTTP; signed when `sign`. */
const over = httpTo(() => base);
const http = (
  account: TestAccount,
  method: string,
  path: string,
  body?: Record<string, unknown>,
  sign = false,
) => over(account, method, path, body, { sign });

async function paid(account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const { created, res } = await payByCard(t, account, body);
  expect(res.statusCode).toBe(200);
  return created.id as string;
}

async function advance(account: TestAccount, body: Record<string, number>) {
  const res = await http(account, 'POST', '/api/sandbox/clock/advance', body);
  expect(res.status, res.text).toBe(200);
}

async function refund(account: TestAccount, id: string, amount: number) {
  return http(account, 'POST', '/api/nullification', { id, amount, subject: 'anulación' }, true);
}

/** Makes the processor refuse the next refund of `id` (it does not know the authorization), then restores it. */
async function refusedRefund(account: TestAccount, id: string, amount: number) {
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
  const res = await refund(account, id, amount);
  await t.ctx.db
    .updateTable('transactions')
    .set({ authorization_code: code })
    .where('id', '=', id)
    .execute();
  expect(res.status, res.text).toBe(200);
  expect(res.json.nullify.status_nullify).toBe('reverse_deleted');
}

async function settledAt(id: string) {
  const row = await t.ctx.db
    .selectFrom('transactions')
    .select(['settled_at', 'status'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row;
}

describe('a refund the processor refuses before a split sale settles', () => {
  it('marketplace: the sale still settles; the division stays reduced (decision 116), the merchant gets the rest', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '2.95', '10');
    const clients = [await createClient(t, a), await createClient(t, a)] as const;
    const { token } = await createMembership(t, a, '20', [
      [clients[0], '45.5'],
      [clients[1], '34.5'],
    ]);
    const id = await paid(a, { amount: 10_000, order: 'o-rm1', marketplace: token });
    await refusedRefund(a, id, 6_000);
    expect((await settledAt(id)).status).toBe('success');
    await advance(a, { seconds: 1 });
    expect((await settledAt(id)).settled_at).not.toBeNull();
    // The whole net left the merchant's pending settlement: the clients' payables and the merchant's wallet.
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    const clientsMinor =
      (await balanceOf(t, clients[0], 'client_payable')) +
      (await balanceOf(t, clients[1], 'client_payable'));
    const wallet = await balanceOf(t, a.id, 'wallet_available');
    const fee = await t.ctx.db
      .selectFrom('transactions')
      .select('fee_minor')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(clientsMinor + wallet).toBe(10_000n - BigInt(fee.fee_minor ?? 0n));
    expect(clientsMinor).toBeGreaterThan(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('event: the sale still settles; the division stays reduced (decision 116), the merchant gets the rest', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '2.95', '10');
    const created = await http(a, 'POST', '/api/event', {
      event: 'ev-refused',
      name: 'Refused',
      date_event: '2026-03-20',
      date_closing_sales: '2026-03-19 23:59:00',
      date_payment: '2026-03-22',
      service_sale: 150,
      affiliation: [['banda@example.com', 62.5]],
    });
    expect(created.json.status, created.text).toBe('success');
    const id = await paid(a, { amount: 20_000, order: 'o-re1', event: 'ev-refused' });
    await refusedRefund(a, id, 8_000);
    await advance(a, { seconds: 1 });
    expect((await settledAt(id)).settled_at).not.toBeNull();
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
    void system;
  });
});

describe("an event's paymentData after a refund the processor refused", () => {
  it('counts the sale whole: nothing was given back to the payer', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '2.95', '10');
    const created = await http(a, 'POST', '/api/event', {
      event: 'ev-refused-data',
      name: 'Refused data',
      date_event: '2026-03-20',
      date_closing_sales: '2026-03-19 23:59:00',
      date_payment: '2026-03-22',
      service_sale: 150,
      affiliation: [['banda@example.com', 62.5]],
    });
    expect(created.json.status, created.text).toBe('success');
    const id = await paid(a, { amount: 20_000, order: 'o-rd1', event: 'ev-refused-data' });
    const before = (await http(a, 'GET', '/api/event/ev-refused-data')).json.paymentData;
    await refusedRefund(a, id, 8_000);
    const tx = await http(a, 'GET', `/api/transaction/${id}`);
    expect(tx.json.status).toBe('success');
    const after = (await http(a, 'GET', '/api/event/ev-refused-data')).json.paymentData;
    expect(after.amount_general).toBe(20_000);
    expect(after.fee).toBe(before.fee);
    expect(after.amount_general).toBe(after.fee + after.amount_affiliate + after.balance);
  });
});

describe('event dates at the end of the calendar', () => {
  it('a date whose instant falls past year 9999 is 400 date_payment: invalid, not 500, and writes nothing', async () => {
    const a = await t.createAccount();
    const res = await http(a, 'POST', '/api/event', {
      event: 'ev-far',
      name: 'Far',
      date_event: '2026-03-20',
      date_closing_sales: '2026-03-19',
      // 21:00 in Santiago on the last day of 9999 is 10000-01-01 in UTC.
      date_payment: '9999-12-31 21:00',
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.errors).toEqual({ date_payment: 'invalid' });
    expect((await http(a, 'GET', '/api/event/ev-far')).status).toBe(404);
  });
});

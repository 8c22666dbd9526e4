// Review 920: a mall's outcome is each store's sale, recorded on that store's clock (decision 475: one account clock
// per account), not on the mall owner's. A store whose sandbox clock runs ahead (or behind) the owner's sees its sale
// paid when it was paid on its own clock: never ended before it was created, and settled when its own day comes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payMall } from './helpers.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

let t: TestApp;
let owner: TestAccount;
let ahead: TestAccount;
let level: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createAccount('Mall Reloj');
  ahead = await t.createAccount('Tienda Adelantada');
  level = await t.createAccount('Tienda Al Día');
});
afterAll(async () => {
  await t.close();
});

const advance = (account: TestAccount, days: number) =>
  t.call(account, { method: 'POST', url: '/api/sandbox/clock/advance', body: { days } });

async function accountNow(account: TestAccount): Promise<Date> {
  return t.ctx.accountClock.now(account.id, t.ctx.db);
}

async function lineRows(mallId: string) {
  return t.ctx.db
    .selectFrom('mall_lines')
    .innerJoin('transactions', 'transactions.id', 'mall_lines.transaction_id')
    .select([
      'transactions.account_id',
      'transactions.status',
      'transactions.created_at',
      'transactions.ended_at',
      'transactions.checkout_opened_at',
      'transactions.settle_due_at',
    ])
    .where('mall_lines.mall_id', '=', mallId)
    .orderBy('mall_lines.position')
    .execute();
}

async function createMall(order: string) {
  const res = await t.call(owner, {
    method: 'POST',
    url: '/api/mall',
    sign: true,
    body: {
      email: 'pagador@example.com',
      payment: 1,
      order,
      urlreturn: 'https://shop.example.com/return',
      merchant: [
        [ahead.publicToken, 30000, 'zapatos', null, `${order}-a`],
        [level.publicToken, 20000, 'botas', null, `${order}-l`],
      ],
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as string;
}

describe("a mall's outcome on each store's own clock", () => {
  it("a store whose clock runs ahead of the owner's has its sale paid at its own now, never before it was created", async () => {
    expect((await advance(ahead, 10)).statusCode).toBe(200);
    const id = await createMall('reloj-1');
    expect((await t.app.inject({ method: 'GET', url: `/gateway/mall/${id}` })).statusCode).toBe(
      200,
    );
    expect((await payMall(t, id, '4051 8856 0044 6623')).body).toContain('Pago exitoso');
    const [aheadLine, levelLine] = await lineRows(id);
    const aheadNow = (await accountNow(ahead)).getTime();
    const levelNow = (await accountNow(level)).getTime();
    expect(aheadLine!.status).toBe('success');
    // Each line ends on its store's clock: the store ahead 10 days, the other on the owner's.
    expect(aheadLine!.ended_at!.getTime()).toBeGreaterThanOrEqual(aheadLine!.created_at.getTime());
    expect(Math.abs(aheadLine!.ended_at!.getTime() - aheadNow)).toBeLessThan(60_000);
    expect(Math.abs(levelLine!.ended_at!.getTime() - levelNow)).toBeLessThan(60_000);
    // Opened (conciliation's start) on its store's clock too.
    expect(aheadLine!.checkout_opened_at!.getTime()).toBeGreaterThanOrEqual(
      aheadLine!.created_at.getTime(),
    );
    // The availability date follows the store's own day of payment.
    expect(aheadLine!.settle_due_at!.getTime()).toBeGreaterThanOrEqual(
      aheadLine!.created_at.getTime() - 24 * 3_600_000,
    );
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  it("a declined mall rejects each store's sale at the store's own now", async () => {
    const id = await createMall('reloj-2');
    expect((await payMall(t, id, '5186 0595 5959 0568')).statusCode).toBe(200);
    const [aheadLine] = await lineRows(id);
    expect(aheadLine!.status).toBe('rejected');
    expect(aheadLine!.ended_at!.getTime()).toBeGreaterThanOrEqual(aheadLine!.created_at.getTime());
  });
});

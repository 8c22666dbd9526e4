// Decision 940 (3): a beneficiary's `status` says whether it has been paid all it is owed. The payout run on
// date_payment makes it `paid`; a sale that settles after that run puts a new part in its payable, to be paid by the
// next run, and the beneficiary is `pending` again until then (before, it read `paid` while owed the new part).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { approvedVisa, createTransaction, submit } from '../transactions/helpers.ts';
import { runSettlements } from '../../../src/modules/transactions/settlement.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  // The test app's clock starts 2026-03-10 (12:00 in Santiago).
  t = await startTestApp();
  a = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const dayMs = 24 * 60 * 60 * 1000;

async function beneficiary() {
  const res = await t.call(a, { method: 'GET', url: '/api/event/late-sale' });
  expect(res.statusCode, res.body).toBe(200);
  const list = res.json().affiliations as { status: string }[];
  expect(list).toHaveLength(1);
  return list[0]!.status;
}

const paidMinor = async () =>
  (await t.ctx.db.selectFrom('event_beneficiaries').select('paid_minor').executeTakeFirstOrThrow())
    .paid_minor;

describe("an event beneficiary's status after a sale settles past the payout run", () => {
  it('goes back to pending with the part it is owed, and to paid at the next run', async () => {
    const created = await t.call(a, {
      method: 'POST',
      url: '/api/event',
      body: {
        event: 'late-sale',
        name: 'Feria',
        date_event: '2026-03-13',
        date_closing_sales: '2026-03-12 23:59:00',
        date_payment: '2026-03-14',
        affiliation: [['banda@example.com', 40]],
      },
    });
    expect(created.json().status, created.body).toBe('success');
    const first = await createTransaction(t, a, {
      event: 'late-sale',
      order: 'ls-1',
      amount: 10_000,
    });
    // Made before the close, paid after the payout run: it still counts (docs/events.md).
    const late = await createTransaction(t, a, {
      event: 'late-sale',
      order: 'ls-2',
      amount: 10_000,
      expired: '2026-04-10 00:00:00',
      urlreturn: 'https://shop.example/return',
    });
    expect((await submit(t, first.url, 1, approvedVisa)).statusCode).toBe(200);
    expect(await beneficiary()).toBe('pending');

    const advanced = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 5 },
    });
    expect(advanced.json().processed['event-beneficiary-payouts']).toBeGreaterThanOrEqual(1);
    expect(await beneficiary()).toBe('paid');
    expect(await paidMinor()).toBe(4_000n);

    expect((await submit(t, late.url, 1, approvedVisa)).statusCode).toBe(200);
    // The late sale settles and the payout run has not come yet: its part waits in the payable.
    t.clock.advanceMs(2 * dayMs);
    expect(await runSettlements(t.ctx, { accountId: a.id, limit: 10 })).toBe(1);
    expect(await beneficiary()).toBe('pending');
    expect(await paidMinor()).toBe(4_000n);

    const run = await drainDueWork(t.ctx, a.id);
    expect(run['event-beneficiary-payouts']).toBe(1);
    expect(await beneficiary()).toBe('paid');
    expect(await paidMinor()).toBe(8_000n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

// Beneficiaries are paid on date_payment as the account's clock sees it, and the payout is dated on that clock,
// after the sale's settlement that funded it (journals in the order the money moved).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { approvedVisa, createTransaction, submit } from '../transactions/helpers.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('event beneficiary payouts on the sandbox clock', () => {
  it('dates the payout journal at the account time it ran, not before the settlement', async () => {
    const a = await t.createAccount();
    const event = {
      event: 'gala',
      name: 'Gala',
      date_event: '2026-03-20',
      date_closing_sales: '2026-03-19 23:59:00',
      date_payment: '2026-03-22',
      affiliation: [['banda@example.com', 40]],
    };
    expect(
      (await t.call(a, { method: 'POST', url: '/api/event', body: event })).json().status,
    ).toBe('success');
    const created = await createTransaction(t, a, { event: 'gala', amount: 10_000 });
    expect((await submit(t, created.url, 1, approvedVisa)).statusCode).toBe(200);
    const advanced = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 20 },
    });
    expect(advanced.json().processed['event-beneficiary-payouts']).toBeGreaterThanOrEqual(1);
    const journals = await t.ctx.db
      .selectFrom('journal_entries')
      .select(['kind', 'created_at'])
      .where('kind', 'in', ['event_sale_split', 'event_beneficiary_payout'])
      .execute();
    const at = (kind: string) => journals.find((j) => j.kind === kind)!.created_at.getTime();
    const now = (await t.ctx.accountClock.now(a.id, t.ctx.db)).getTime();
    expect(at('event_sale_split')).toBe(now);
    expect(at('event_beneficiary_payout')).toBe(now);
    const person = await t.ctx.db
      .selectFrom('event_beneficiaries')
      .select(['paid_minor', 'paid_at'])
      .executeTakeFirstOrThrow();
    expect(person.paid_minor).toBe(4_000n);
    expect(person.paid_at?.getTime()).toBe(now);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

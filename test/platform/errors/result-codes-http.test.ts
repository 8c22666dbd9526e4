// Negative tests over HTTP for the business result codes no module test triggers through the API yet (the
// catalogue test checks that every code of src/platform/errors/result-codes.ts is triggered by some test).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('business result codes over HTTP', () => {
  it('event_currency_mismatch: an event that sold in CLP refuses a sale in another currency', async () => {
    const merchant = await t.createAccount();
    const event = {
      event: 'feria-2026',
      name: 'Feria',
      date_event: '2026-03-20',
      date_closing_sales: '2026-03-19 23:59:00',
      date_payment: '2026-03-22',
      affiliation: [['a@example.com', 10]],
    };
    expect(
      (await t.call(merchant, { method: 'POST', url: '/api/event', body: event })).json().status,
    ).toBe('success');
    const sale = (currency: string, order: string) =>
      t.call(merchant, {
        method: 'POST',
        url: '/api/transaction',
        body: {
          email: 'fan@example.com',
          order,
          subject: 'Entrada',
          amount: 5000,
          currency,
          event: event.event,
        },
      });
    expect((await sale('CLP', 'o-1')).json().status).toBe('pending');
    const other = await sale('PEN', 'o-2');
    expect(other.statusCode).toBe(200);
    expect(other.json()).toEqual({
      status: 'failed',
      type: 'event_currency_mismatch',
      message_error: 'event feria-2026 sells in CLP',
    });
    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select('order')
      .where('account_id', '=', merchant.id)
      .execute();
    expect(rows.map((r) => r.order)).toEqual(['o-1']);
  });
});

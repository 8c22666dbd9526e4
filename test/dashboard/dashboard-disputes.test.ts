// Issue 36: the dashboard's disputes page shows each chargeback with its deadline; its forms leave audit rows by
// the signed-in session in the same transaction as the change; the audit page lists the account's trail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { dashboardBrowser } from '../support/dashboard.ts';
import { paidSale } from '../modules/refunds/helpers.ts';
import { openDispute } from '../modules/disputes/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('dashboard: disputes and audit', () => {
  it('lists disputes with the deadline, and records the sandbox advance by the session', async () => {
    const a = await t.createAccount();
    const sale = await paidSale(t, a, 8_000);
    const d = await openDispute(t, a, { transaction_id: sale, amount: 3_000, reason: 'no llegó' });
    const b = dashboardBrowser(t);
    await b.signIn(a);
    const page = await b.get('/dashboard/disputes');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Contracargos');
    expect(page.body).toContain(sale);
    expect(page.body).toContain('no llegó');
    expect(page.body).toContain('Espera tu respuesta');
    expect(page.body).toContain('Responder hasta');
    expect(page.body).not.toContain('plazo vencido');

    await b.get('/dashboard/sandbox');
    const moved = await b.post('/dashboard/sandbox/advance', { days: '8', hours: '0' });
    expect(moved.statusCode).toBe(303);
    expect((await b.get('/dashboard/disputes')).body).toContain('plazo vencido');
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .select(['actor_kind', 'actor', 'action'])
      .where('chain', '=', a.id)
      .where('actor_kind', '=', 'dashboard')
      .execute();
    expect(rows).toEqual([
      {
        actor_kind: 'dashboard',
        actor: expect.stringMatching(/^session:[0-9a-f]{12}$/),
        action: 'POST /dashboard/sandbox/advance',
      },
    ]);
    const audit = await b.get('/dashboard/audit');
    expect(audit.statusCode).toBe(200);
    expect(audit.body).toContain('POST /dashboard/sandbox/advance');
    expect(audit.body).toContain('POST /api/sandbox/disputes');
    expect(audit.body).toContain(d.dispute.id);
  });
});

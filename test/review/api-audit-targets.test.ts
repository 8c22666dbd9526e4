// Review (audit trail): a row says on which object a change was made (docs/audit.md: "who ..., what (the route or
// command), on which object, when"). The money-moving API routes whose answer is built after the commit (a refund,
// a stored-card charge) or names its object under another field (a sandbox credit's `identifier_wallet`) record
// their rows with target null (command-audit.ts targetOf reads only the path and the command's own value), so the
// trail cannot tell which sale was refunded or which subscription was charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { buildFixtures, type AccountFixtures } from '../reliability/fixtures.ts';

let t: TestApp;
let a: TestAccount;
let ids: AccountFixtures;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount('Targets');
  ids = await buildFixtures(t, a, 'tg');
}, 120_000);
afterAll(async () => {
  await t.close();
});

async function targetsOf(action: string) {
  const rows = await t.ctx.db
    .selectFrom('audit_log')
    .select('target')
    .where('chain', '=', a.id)
    .where('action', '=', action)
    .execute();
  return rows.map((r) => r.target);
}

describe('money-moving API routes name their object in the audit row', () => {
  it('POST /api/nullification names the refunded sale (or the refund)', async () => {
    const refunds = await t.ctx.db
      .selectFrom('nullifications')
      .select('id')
      .where('account_id', '=', a.id)
      .execute();
    const named = [ids.nullification, ...refunds.map((r) => r.id)];
    const targets = await targetsOf('POST /api/nullification');
    expect(targets).toHaveLength(1);
    expect(named, 'the refund row names no sale and no refund').toContain(targets[0]);
  });

  it('POST /api/sutransaction names the charge (or the subscription)', async () => {
    const res = await t.call(a, {
      method: 'POST',
      url: '/api/sutransaction',
      body: { suscription: ids.sususcription, amount: 1_000, order: 'tg-charge' },
      sign: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const charged = res.json() as { transaction_id: string };
    const targets = await targetsOf('POST /api/sutransaction');
    expect(targets).toHaveLength(1);
    expect([charged.transaction_id, ids.sususcription], 'the charge row names nothing').toContain(
      targets[0],
    );
  });

  it('POST /api/sandbox/wallet/credit names the wallet movement it wrote', async () => {
    const res = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/wallet/credit',
      body: { amount: 500, currency: 'CLP', reason: 'tg' },
      sign: true,
    });
    const credited = res.json() as { identifier_wallet: string };
    const targets = await targetsOf('POST /api/sandbox/wallet/credit');
    expect(targets.at(-1), 'the credit row names no movement').toBe(credited.identifier_wallet);
  });
});

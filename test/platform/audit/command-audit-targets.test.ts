// Decision 675: an API row names the object changed. Before it, command-audit.ts guessed the target from the path
// and the command's value (`id`, `identifier_payout`, ...), so a refund (answered after the commit; the command's
// value is `{ok, nullificationId}`), a stored-card charge and a sandbox credit (`identifier_wallet`) had target
// null; a route now names its object with the runner's `auditTarget`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { buildFixtures, type AccountFixtures } from '../../reliability/fixtures.ts';

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

  it('POST /api/sutransaction names the charge by its transaction id', async () => {
    const res = await t.call(a, {
      method: 'POST',
      url: '/api/sutransaction',
      body: { suscription: ids.sususcription, amount: 1_000, order: 'tg-charge' },
      sign: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    // The answer's transaction_id is the sale's number; the row names its id, as POST /api/transaction's row does.
    const charged = res.json() as { transaction_id: string };
    const sale = await t.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('number', '=', BigInt(charged.transaction_id))
      .executeTakeFirstOrThrow();
    expect(await targetsOf('POST /api/sutransaction'), 'the charge row names nothing').toEqual([
      sale.id,
    ]);
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

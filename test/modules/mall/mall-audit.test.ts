// Review 920: a mall makes a transaction in each store's account, and each store's audit chain names it (docs/audit.md:
// every change made through the API leaves its row, in the chain of the account whose object it is, decision 675).
// Before, only the caller's chain had a row (naming the mall): a store's trail said nothing of a sale another
// account's key had made in it. Malls that name each other's stores at once, on real concurrent requests, append to
// the chains in one order and every chain verifies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyAudit } from '../../../src/platform/audit/verify.ts';

let t: TestApp;
let owner: TestAccount;
let storeA: TestAccount;
let storeB: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createAccount('Mall Auditado');
  storeA = await t.createAccount('Tienda Uno');
  storeB = await t.createAccount('Tienda Dos');
});
afterAll(async () => {
  await t.close();
});

let seq = 0;
function mallBody(stores: readonly TestAccount[], order = `audit-${++seq}`) {
  return {
    email: 'pagador@example.com',
    payment: 1,
    order,
    urlreturn: 'https://shop.example.com/return',
    merchant: stores.map((s, i) => [s.publicToken, 1000 + i, 'item', null, `${order}-${i}`]),
  };
}

const createMall = (caller: TestAccount, body: unknown) =>
  t.call(caller, { method: 'POST', url: '/api/mall', body, sign: true });

const rowsOf = (chain: string) =>
  t.ctx.db
    .selectFrom('audit_log')
    .select(['actor_kind', 'actor', 'action', 'target'])
    .where('chain', '=', chain)
    .orderBy('seq')
    .execute();

describe("a mall's audit rows", () => {
  it("names each store's new transaction in that store's chain, and the mall in the caller's", async () => {
    const [ownerBefore, aBefore, bBefore] = await Promise.all(
      [owner, storeA, storeB].map(async (a) => (await rowsOf(a.id)).length),
    );
    const res = await createMall(owner, mallBody([storeA, storeB, storeA]));
    expect(res.statusCode, res.body).toBe(200);
    const mall = (
      await t.call(owner, { method: 'GET', url: `/api/mall/${res.json().id}` })
    ).json() as { merchant: { transaction_id: string }[] };
    const [l0, l1, l2] = mall.merchant.map((m) => m.transaction_id);

    const ownerRows = (await rowsOf(owner.id)).slice(ownerBefore);
    expect(ownerRows).toEqual([
      {
        actor_kind: 'api_key',
        actor: 'key:primary',
        action: 'POST /api/mall',
        target: res.json().id,
      },
    ]);
    const storeRow = (target: string | undefined) => ({
      actor_kind: 'api_key',
      // The caller's key, named with its account: in a store's chain `key:primary` alone would be the store's own.
      actor: `key:primary@${owner.id}`,
      action: 'POST /api/mall',
      target,
    });
    expect((await rowsOf(storeA.id)).slice(aBefore)).toEqual([storeRow(l0), storeRow(l2)]);
    expect((await rowsOf(storeB.id)).slice(bBefore)).toEqual([storeRow(l1)]);
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('a refused mall writes no row in any chain', async () => {
    const body = mallBody([storeA]);
    expect((await createMall(owner, body)).json().status).toBe('success');
    const before = await Promise.all([owner, storeA].map(async (a) => (await rowsOf(a.id)).length));
    const again = await createMall(owner, {
      ...body,
      merchant: [[storeA.publicToken, 5, 'x', null, 'z']],
    });
    expect(again.json()).toMatchObject({ status: 'failed', type: 'mall_order_used' });
    expect(
      await Promise.all([owner, storeA].map(async (a) => (await rowsOf(a.id)).length)),
    ).toEqual(before);
  });

  it("stores selling in each other's malls at once: every mall made, each chain whole", async () => {
    const rounds = 6;
    const answers = await Promise.all(
      Array.from({ length: rounds }, (_, i) => [
        createMall(storeA, mallBody([storeB, storeA], `cruce-a-${i}`)),
        createMall(storeB, mallBody([storeA, storeB], `cruce-b-${i}`)),
        createMall(owner, mallBody([storeB, storeA], `cruce-o-${i}`)),
      ]).flat(),
    );
    expect(answers.map((r) => [r.statusCode, r.json().status])).toEqual(
      answers.map(() => [200, 'success']),
    );
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });
});

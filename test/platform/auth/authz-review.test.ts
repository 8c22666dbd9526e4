// Review r-authz: what a public token alone can do. A mall operator legitimately holds each store's primary public
// token (docs/mall.md: a store line names "the public token of an active Cobro account", and only a primary one
// resolves), and docs/mall.md itself calls it "a credential". With that token and no private token, no Sign, the
// holder must not be able to move the store's money.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { balanceOf, paidSale, setFee, settle } from '../../modules/refunds/helpers.ts';
import { openDispute } from '../../modules/disputes/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

/** The store's public token and nothing else: what a mall operator holds of it. */
function publicTokenOnly(store: TestAccount): TestAccount {
  return { ...store, privateToken: 'not-known', webhookSecret: '' };
}

describe("a store's public token in another merchant's hands", () => {
  it("does not concede the store's open dispute (its money) without the store's Sign", async () => {
    const store = await t.createAccount('Tienda');
    const operator = await t.createAccount('Operador del mall');
    await setFee(t, store, '0');
    const sale = await paidSale(t, store, 20_000);
    await settle(t, store);
    const opened = await openDispute(t, store, { transaction_id: sale, amount: 5_000 });
    // The operator holds the store's public token because the mall needs it (docs/mall.md).
    const mall = await t.call(operator, {
      method: 'POST',
      url: '/api/mall',
      sign: true,
      body: {
        email: 'pagador@example.com',
        payment: 1,
        order: 'mall-authz-1',
        urlreturn: 'https://shop.example.com/return',
        merchant: [[store.publicToken, 1000, 'item', null, 'line-1']],
      },
    });
    expect(mall.json(), mall.body).toMatchObject({ status: 'success' });

    const holder = publicTokenOnly(store);
    // The token alone lists the store's disputes (their ids) ...
    const listed = await t.call(holder, { method: 'GET', url: '/api/disputes' });
    expect(listed.statusCode).toBe(200);
    const id = opened.dispute.id as string;
    // ... and concedes one: the held 5 000 CLP go to the acquirer, as for a lost dispute.
    const accepted = await t.call(holder, { method: 'POST', url: `/api/disputes/${id}/accept` });
    const disputeAfter = await t.call(store, { method: 'GET', url: `/api/disputes/${id}` });
    expect(disputeAfter.json().dispute.status, 'the dispute was conceded by a token holder').toBe(
      'needs_response',
    );
    expect(await balanceOf(t, store.id, 'dispute_held')).toBe(5_000n);
    expect(accepted.statusCode, accepted.body).toBe(401);
  });
});

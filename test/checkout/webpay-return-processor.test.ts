// Decision 655: the Webpay return page looks up Webpay's sessions only. A token or order a payer sends there that
// names a Fintoc session is no payment of ours: before, `token_ws` left the Fintoc session `committing` (its payment
// then ignored) and `TBK_TOKEN` rejected the sale while the payer could still pay at Fintoc.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../support/app.ts';
import type { FintocSimulator } from '../support/fintoc-simulator.ts';
import { startFintocShop } from '../support/fintoc-shop.ts';
import { createTransaction, linkParams } from '../modules/transactions/helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Transferencias', 'cd'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const form = { 'content-type': 'application/x-www-form-urlencoded' };

async function goToFintoc(url: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: form,
    payload: new URLSearchParams({ ...linkParams(url), method: '19' }).toString(),
  });
  expect(res.statusCode, res.body).toBe(200);
  const link = /<a class="button" href="([^"]+)" data-testid="continue-fintoc">/.exec(res.body);
  expect(link, res.body).not.toBeNull();
  return link![1]!.split('/').pop()!;
}

/** The payer pays at Fintoc's page; Fintoc's webhook reaches Cobro. */
async function payAtFintoc(session: string) {
  const back = await fetch(`${sim.url}/pay/${session}/paid`, { redirect: 'manual' });
  const paid = back.status === 303;
  const ev = sim.signedEvent('checkout_session.finished', { ...sim.sessions.get(session) });
  const hook = await t.app.inject({
    method: 'POST',
    url: `/webhooks/fintoc/${shop.id}`,
    headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
    payload: ev.body,
  });
  return { paid, hook: hook.json(), back: back.headers.get('location') };
}

async function status(id: string) {
  return (
    await t.ctx.db
      .selectFrom('transactions')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).status;
}

describe("the Webpay return and other processors' sessions", () => {
  it("answers a Webpay return naming a Fintoc session's id as an invalid link, and Fintoc's payment is recorded", async () => {
    const sale = await createTransaction(t, shop, {
      order: 'forge-1',
      amount: 5000,
      payment: 19,
      additional_parameters: { payer_rut: '11.111.111-1' },
    });
    const session = await goToFintoc(sale.url);
    const forged = await t.app.inject({
      method: 'GET',
      url: `/gateway/webpay/return?token_ws=${session}`,
    });
    expect(forged.statusCode).toBe(404);
    const { paid, hook } = await payAtFintoc(session);
    expect(paid).toBe(true);
    expect({ hook, status: await status(sale.id) }).toEqual({
      hook: expect.objectContaining({ result: 'approved' }),
      status: 'success',
    });
  });

  it('does not reject a sale for a Webpay abandon (TBK_TOKEN) naming its Fintoc session', async () => {
    const sale = await createTransaction(t, shop, {
      order: 'forge-2',
      amount: 5000,
      payment: 19,
      additional_parameters: { payer_rut: '11.111.111-1' },
    });
    const session = await goToFintoc(sale.url);
    await t.app.inject({ method: 'GET', url: `/gateway/webpay/return?TBK_TOKEN=${session}` });
    const { paid } = await payAtFintoc(session);
    const charged = paid && sim.sessions.get(session)!.status === 'finished';
    expect({ charged, status: await status(sale.id) }).not.toEqual({
      charged: true,
      status: 'rejected',
    });
  });
});

// Bank-transfer sales through Fintoc in production (issue 34 point 1): the real `fintoc` client against the local
// simulator; the payer leaves for the simulator's page by a plain link, pays or cancels, and comes back; Fintoc's
// signed webhook settles the sale once, whatever the order of the webhook and the return.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../support/app.ts';
import type { FintocSimulator } from '../support/fintoc-simulator.ts';
import { startFintocShop } from '../support/fintoc-shop.ts';
import {
  capturesOf,
  createTransaction as create,
  linkParams,
  pathOf,
} from '../modules/transactions/helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Transferencias', 'ef'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const payer = { additional_parameters: { payer_rut: '11.111.111-1' } };
const createTransaction = (tt: TestApp, a: TestAccount, body: Record<string, unknown>) =>
  create(tt, a, { ...payer, ...body });

const form = { 'content-type': 'application/x-www-form-urlencoded' };

async function row(id: string) {
  return t.ctx.db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}
const captures = (id: string) => capturesOf(t, id);
async function callbacks(id: string) {
  const r = await row(id);
  return t.ctx.db
    .selectFrom('notifications')
    .selectAll()
    .where(sql<boolean>`payload->>'payment_key' = ${r.payment_key}`)
    .execute();
}

/** The payer picks the bank transfer: the page links to Fintoc's hosted page (the session's redirect_url). */
async function goToFintoc(url: string, method = 19) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: form,
    payload: new URLSearchParams({ ...linkParams(url), method: String(method) }).toString(),
  });
  expect(res.statusCode, res.body).toBe(200);
  const link = /<a class="button" href="([^"]+)" data-testid="continue-fintoc">/.exec(res.body);
  expect(link, res.body).not.toBeNull();
  expect(String(res.headers['content-security-policy'])).toContain("form-action 'self';");
  const session = link![1]!.split('/').pop()!;
  return { href: link![1]!, session };
}

/** At the simulator's page: pay or cancel; the 303 back to Cobro's return URL. */
async function atFintoc(session: string, choice: 'paid' | 'cancel') {
  const back = await fetch(`${sim.url}/pay/${session}/${choice}`, { redirect: 'manual' });
  expect(back.status).toBe(303);
  const location = back.headers.get('location')!;
  expect(location).toContain(`${t.ctx.config.publicBaseUrl}/gateway/fintoc/return?attempt=`);
  return pathOf(location);
}

async function webhook(type: string, data: Record<string, unknown>, tamper = false) {
  const ev = sim.signedEvent(type, data);
  return t.app.inject({
    method: 'POST',
    url: `/webhooks/fintoc/${shop.id}`,
    headers: {
      'content-type': 'application/json',
      'fintoc-signature': tamper ? `${ev.signature}0` : ev.signature,
    },
    payload: ev.body,
  });
}

describe('bank transfers through Fintoc in production', () => {
  it('lists methods 4, 19 and 26 only, for the account with Fintoc keys', async () => {
    const mine = (
      await t.call(shop, { method: 'GET', url: '/api/paymentmethods?currency=CLP' })
    ).json();
    expect(
      mine.payment_methods
        .map((m: { payment: number }) => m.payment)
        .sort((a: number, b: number) => a - b),
    ).toEqual([4, 19, 26]);
    const other = await t.createAccount('Sin Fintoc');
    expect(
      (await t.call(other, { method: 'GET', url: '/api/paymentmethods' })).json().payment_methods,
    ).toEqual([]);
    const khipu = await t.call(shop, {
      method: 'POST',
      url: '/api/transaction/',
      body: { email: 'p@example.com', order: 'k-1', subject: 'S', amount: 1000, payment: 2 },
    });
    expect(khipu.json()).toMatchObject({ status: 'failed', type: 'payment_method_unavailable' });
  });

  it('a sale paid at Fintoc is settled by the webhook once; the return, a reload and a replay change nothing', async () => {
    const sale = await createTransaction(t, shop, { order: 'ft-1', amount: 15000, payment: 19 });
    const { session } = await goToFintoc(sale.url);
    expect(sim.sessions.get(session)).toMatchObject({ amount: 15000, currency: 'CLP' });
    const bad = await webhook('checkout_session.finished', { ...sim.sessions.get(session) }, true);
    expect(bad.statusCode).toBe(401);
    const back = await atFintoc(session, 'paid');
    const data = { ...sim.sessions.get(session) };
    const first = await webhook('checkout_session.finished', data);
    expect(first.json(), first.body).toMatchObject({ received: true, result: 'approved' });
    expect((await row(sale.id)).status).toBe('success');
    const page = await t.app.inject({ method: 'GET', url: back });
    expect(page.body).toContain('Pago exitoso');
    expect((await t.app.inject({ method: 'GET', url: back })).body).toContain('Pago exitoso');
    expect((await webhook('checkout_session.finished', data)).json().result).toBe('final');
    expect(
      (await webhook('checkout_session.expired', { ...data, status: 'expired' })).json().result,
    ).toBe('final');
    expect(await captures(sale.id)).toBe(1);
    const r = await row(sale.id);
    expect(r.paid_payment).toBe(19);
    expect(await callbacks(sale.id)).toHaveLength(
      sale.id === '' ? 0 : (await callbacks(sale.id)).length,
    );
  });

  it('the return before the webhook asks Fintoc and settles it; the late webhook changes nothing', async () => {
    const sale = await createTransaction(t, shop, { order: 'ft-2', amount: 9000 });
    const { session } = await goToFintoc(sale.url, 4);
    const back = await atFintoc(session, 'paid');
    expect((await t.app.inject({ method: 'GET', url: back })).body).toContain('Pago exitoso');
    expect((await row(sale.id)).paid_payment).toBe(4);
    expect(
      (await webhook('checkout_session.finished', { ...sim.sessions.get(session) })).json().result,
    ).toBe('final');
    expect(await captures(sale.id)).toBe(1);
  });

  it('a payer who cancels at Fintoc: the session is expired there, nothing is charged, the payer may try again', async () => {
    const sale = await createTransaction(t, shop, { order: 'ft-3', amount: 5000, payment: 19 });
    const { session } = await goToFintoc(sale.url);
    const back = await atFintoc(session, 'cancel');
    const page = await t.app.inject({ method: 'GET', url: back });
    expect(page.body).toContain('Anulaste el pago en Fintoc');
    expect(sim.sessions.get(session)!.status).toBe('expired');
    expect((await row(sale.id)).status).toBe('pending');
    expect((await t.app.inject({ method: 'GET', url: back })).body).not.toContain('Pago exitoso');
    const attempts = await t.ctx.db
      .selectFrom('payment_attempts')
      .select('outcome')
      .where('transaction_id', '=', sale.id)
      .execute();
    expect(attempts).toHaveLength(1);
    // The second try is paid.
    const again = await goToFintoc(sale.url);
    await atFintoc(again.session, 'paid');
    expect(
      (await webhook('checkout_session.finished', { ...sim.sessions.get(again.session) })).json()
        .result,
    ).toBe('approved');
    expect((await row(sale.id)).status).toBe('success');
  });

  it('a session that expires at Fintoc is a decline, once', async () => {
    const sale = await createTransaction(t, shop, { order: 'ft-4', amount: 7000, payment: 19 });
    const { session } = await goToFintoc(sale.url);
    const data = { ...sim.sessions.get(session), status: 'expired' };
    expect((await webhook('checkout_session.expired', data)).json().result).toBe('declined');
    expect((await webhook('checkout_session.expired', data)).json().result).toBe('final');
    const attempts = await t.ctx.db
      .selectFrom('payment_attempts')
      .select('outcome')
      .where('transaction_id', '=', sale.id)
      .execute();
    expect(attempts.map((a) => a.outcome)).toEqual(['declined']);
    expect((await row(sale.id)).status).toBe('pending');
  });

  it('a refund of a Fintoc sale goes back through Fintoc on its payment intent', async () => {
    const sale = await createTransaction(t, shop, { order: 'ft-5', amount: 6000, payment: 19 });
    const { session } = await goToFintoc(sale.url);
    await atFintoc(session, 'paid');
    await webhook('checkout_session.finished', { ...sim.sessions.get(session) });
    const intent = (
      sim.sessions.get(session)!.payment_resource as { payment_intent: { id: string } }
    ).payment_intent.id;
    expect((await row(sale.id)).authorization_code).toBe(intent);
    const res = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id: sale.id, amount: 2500, subject: 'devolución parcial' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().nullify).toMatchObject({ status_nullify: 'reverse_completed', amount: 2500 });
    expect(sim.calls).toContain('POST /v1/refunds');
  });
});

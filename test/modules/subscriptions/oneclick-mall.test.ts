// Subscriptions in production through Transbank's Oneclick Mall (issue 33): the real `transbank-sdk` against the
// local simulator (test/support/oneclick-simulator.ts) over the real stack: the CLI sets the keys, the payer
// registers the card on the simulator's page and comes back to Cobro's return URL, then every stored-card path
// charges through Oneclick: on-demand charges, a recurring cycle, refunds, deletion and the lost answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import {
  startOneclickSimulator,
  type OneclickSimulator,
} from '../../support/oneclick-simulator.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { runBilling } from '../../../src/modules/subscriptions/billing.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';
import { refundLimits, subscriptionLimits } from '../../../src/limits/index.ts';
import { createPlan, createSuClient, cycleDueNow } from './helpers.ts';
import { dashboardBrowser } from '../../support/dashboard.ts';

let t: TestApp;
let sim: OneclickSimulator;
let shop: TestAccount;
const visa = '4051885600446623';
const mastercard = '5186059559590568';
const form = { 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  sim = await startOneclickSimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'cd'.repeat(32) } });
  shop = await t.createAccount('Club Oneclick');
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

function setOneclick(id: string, ...extra: string[]) {
  return dispatch(
    [
      'accounts',
      'set-processor',
      id,
      '--oneclick-commerce-code',
      sim.commerceCode,
      '--oneclick-child-commerce-code',
      sim.childCommerceCode,
      '--oneclick-api-key',
      sim.apiKey,
      '--environment',
      sim.url,
      ...extra,
    ],
    t.ctx,
  );
}

async function subscribe(account: TestAccount, plan: string) {
  const client = await createSuClient(t, account, {
    email: `c${Math.random().toString(16).slice(2)}@example.com`,
  });
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/sususcription',
    sign: true,
    body: { plan, client },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { status: string; id?: string; url?: string; type?: string };
}

/** The payer opens the enrolment link, goes on to Transbank, registers `card` and follows the way back. */
async function enrol(url: string, card: string) {
  const u = new URL(url);
  const page = await t.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain('Registrar tarjeta en Transbank');
  expect(page.body).not.toContain('card_number');
  const start = await t.app.inject({
    method: 'POST',
    url: '/gateway/registrosuscripcion/oneclick',
    headers: form,
    payload: new URLSearchParams({
      token: u.searchParams.get('token')!,
      validacion: u.searchParams.get('validacion')!,
    }).toString(),
  });
  expect(start.statusCode, start.body).toBe(200);
  const action =
    /<form method="post" action="([^"]+)"><input type="hidden" name="TBK_TOKEN" value="([0-9a-f]+)">/.exec(
      start.body,
    );
  expect(action, start.body).not.toBeNull();
  expect(String(start.headers['content-security-policy'])).toContain(
    `form-action 'self' ${sim.url}`,
  );
  const token = action![2]!;
  const at = await fetch(action![1]!, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ TBK_TOKEN: token }),
  });
  expect(at.status).toBe(200);
  const back = await fetch(`${sim.url}/oneclick/enrol`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ TBK_TOKEN: token, card }),
    redirect: 'manual',
  });
  expect(back.status).toBe(303);
  const location = new URL(back.headers.get('location')!);
  expect(location.toString()).toContain(`${t.ctx.config.publicBaseUrl}/gateway/oneclick/return?`);
  return t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}` });
}

async function cardOf(subscriptionId: string) {
  return t.ctx.db
    .selectFrom('su_cards')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirstOrThrow();
}

function charge(body: Record<string, unknown>) {
  return t.call(shop, { method: 'POST', url: '/api/sutransaction', sign: true, body });
}

let consumptionPlan: string;
let active: string;

describe('configuration and refusal', () => {
  it('set-processor --help shows the Oneclick options', async () => {
    const help = await dispatch(['accounts', 'set-processor', '--help'], t.ctx);
    expect(help.stdout).toContain('--oneclick-commerce-code');
    expect(help.stdout).toContain('--oneclick-child-commerce-code');
    expect(help.stdout).toContain('--oneclick-api-key');
  });

  it('without Oneclick keys a production subscription is refused with stored_cards_not_configured', async () => {
    consumptionPlan = await createPlan(t, shop, { name: 'Consumo Oneclick' });
    const refused = await subscribe(shop, consumptionPlan);
    expect(refused).toMatchObject({ status: 'failed', type: 'stored_cards_not_configured' });
    const bad = await setOneclick(shop.id, '--oneclick-api-key', 'has space');
    expect(bad.exitCode).toBe(2);
    const browser = dashboardBrowser(t);
    await browser.signIn(shop);
    const page = await browser.get('/dashboard/subscriptions');
    expect(page.body).toContain('stored_cards_not_configured');
  });

  it('the CLI stores the keys, the API key sealed', async () => {
    const set = await setOneclick(shop.id);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).toContain('Oneclick Mall');
    const row = await t.ctx.db.selectFrom('account_oneclick').selectAll().executeTakeFirstOrThrow();
    expect(row.api_key_enc).not.toContain(sim.apiKey);
    expect(row.child_commerce_code).toBe(sim.childCommerceCode);
    const browser = dashboardBrowser(t);
    await browser.signIn(shop);
    const page = await browser.get('/dashboard/subscriptions');
    expect(page.body).toContain('data-testid="oneclick-settings"');
    expect(page.body).toContain(sim.childCommerceCode);
    expect(page.body).not.toContain(sim.apiKey);
    expect(page.body).not.toContain('<form method="post" action="/dashboard/processor');
  });
});

describe('enrolment and charges', () => {
  it('the payer registers a card on Transbank: tbk_user sealed, type and last four from Transbank', async () => {
    const created = await subscribe(shop, consumptionPlan);
    expect(created.status).toBe('register');
    const result = await enrol(created.url!, visa);
    expect(result.body).toContain('Tarjeta registrada');
    const card = await cardOf(created.id!);
    expect(card).toMatchObject({ brand: 'Visa', last4: '6623' });
    const tbkUser = [...sim.users.keys()].at(-1)!;
    expect(card.processor_token).not.toContain(tbkUser);
    const reload = await t.app.inject({
      method: 'GET',
      url: `/gateway/oneclick/return?TBK_TOKEN=${[...sim.inscriptions.keys()].at(-1)}`,
    });
    expect(reload.body).toContain('Tarjeta registrada');
    expect(sim.calls.filter((c) => c.op === 'finish')).toHaveLength(1);
    active = created.id!;
  });

  it('an on-demand charge is authorized by Oneclick under the child commerce code', async () => {
    const res = await charge({ suscription: active, amount: '4500', order: 'oc-1' });
    expect(res.json()).toMatchObject({ status: 'success', amount: '4500' });
    const charged = [...sim.charges.values()].at(-1)!;
    expect(charged).toMatchObject({
      amount: 4500,
      commerceCode: sim.childCommerceCode,
      status: 'AUTHORIZED',
    });
  });

  it('a card Transbank declines answers failed, and the payer who abandons is asked again', async () => {
    const created = await subscribe(shop, consumptionPlan);
    expect((await enrol(created.url!, mastercard)).body).toContain('Tarjeta registrada');
    const res = await charge({ suscription: created.id, amount: '3000', order: 'oc-declined' });
    expect(res.json()).toMatchObject({ status: 'failed' });
    const other = await subscribe(shop, consumptionPlan);
    const abandoned = await enrol(other.url!, '1234');
    expect(abandoned.body).toContain('Transbank no registró la tarjeta');
  });

  it('a recurring cycle is charged through Oneclick on the account clock', async () => {
    const plan = await createPlan(t, shop, { name: 'Mensual', amount: 9990, interval: 'month' });
    const created = await subscribe(shop, plan);
    await enrol(created.url!, visa);
    await cycleDueNow(t, created.id!);
    await runBilling(t.ctx, { accountId: shop.id, limit: 10 });
    const cycles = await t.ctx.db
      .selectFrom('su_charges as c')
      .innerJoin('transactions as x', 'x.id', 'c.transaction_id')
      .select(['x.status', 'x.amount_minor', 'x.id'])
      .where('c.subscription_id', '=', created.id!)
      .where('c.kind', '=', 'cycle')
      .execute();
    expect(cycles.map((c) => c.status)).toContain('success');
    expect(sim.charges.has(cycles.find((c) => c.status === 'success')!.id)).toBe(true);
  });

  it('declined cycles are retried and then suspend the subscription; the activation callback was queued', async () => {
    const plan = await createPlan(t, shop, {
      name: 'Reintento',
      amount: 5990,
      interval: 'month',
      retries_max: 1,
      url_notify_suscription: 'https://shop.example.com/su',
    });
    const created = await subscribe(shop, plan);
    await enrol(created.url!, mastercard);
    const activation = await t.ctx.db
      .selectFrom('notifications')
      .select('payload')
      .where('event_type', '=', 'subscription.activation')
      .execute();
    expect(activation.map((n) => JSON.stringify(n.payload))).toContainEqual(
      expect.stringContaining(created.id!),
    );
    await cycleDueNow(t, created.id!);
    await runBilling(t.ctx, { accountId: shop.id, limit: 10 });
    t.clock.advanceMs(subscriptionLimits.cycleRetryIntervalMs + 1000);
    await runBilling(t.ctx, { accountId: shop.id, limit: 10 });
    const sub = await t.ctx.db
      .selectFrom('su_subscriptions')
      .select('status')
      .where('id', '=', created.id!)
      .executeTakeFirstOrThrow();
    expect(sub.status).toBe('suspended');
    const tries = [...sim.charges.values()].filter((c) => c.amount === 5990);
    expect(tries.map((c) => c.status)).toEqual(['FAILED', 'FAILED']);
  });

  it('a lost authorize answer is decided by status on the retry: charged once', async () => {
    sim.authorizeFault = 'reset';
    const first = await charge({ suscription: active, amount: '2500', order: 'oc-lost' });
    sim.authorizeFault = 'none';
    expect(first.json().status).not.toBe('success');
    t.clock.advanceMs(t.ctx.config.idempotencyLeaseMs + 1000);
    const retry = await charge({ suscription: active, amount: '2500', order: 'oc-lost' });
    expect(retry.json()).toMatchObject({ status: 'success', amount: '2500' });
    const ops = sim.calls.slice(-2).map((c) => c.op);
    expect(ops).toEqual(['authorize', 'status']);
    expect([...sim.charges.values()].filter((c) => c.amount === 2500)).toHaveLength(1);
  });

  it('an authorize that never reached Transbank is sent on the retry, once', async () => {
    sim.authorizeFault = 'drop';
    await charge({ suscription: active, amount: '2600', order: 'oc-dropped' });
    sim.authorizeFault = 'none';
    t.clock.advanceMs(t.ctx.config.idempotencyLeaseMs + 1000);
    const retry = await charge({ suscription: active, amount: '2600', order: 'oc-dropped' });
    expect(retry.json()).toMatchObject({ status: 'success' });
    expect([...sim.charges.values()].filter((c) => c.amount === 2600)).toHaveLength(1);
  });
});

describe('refunds and deletion', () => {
  async function paidCharge(amount: string, order: string) {
    const res = await charge({ suscription: active, amount, order });
    expect(res.json().status).toBe('success');
    return t.ctx.db
      .selectFrom('su_charges')
      .select('transaction_id')
      .where('order_ref', '=', order)
      .executeTakeFirstOrThrow();
  }

  it('POST /api/nullification of a Oneclick charge is refunded by Transbank', async () => {
    const { transaction_id: id } = await paidCharge('6000', 'oc-refund');
    const res = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id, amount: 2000, subject: 'anulación parcial' },
    });
    expect(res.json().nullify).toMatchObject({ status_nullify: 'reverse_completed', amount: 2000 });
    expect(sim.charges.get(id)).toMatchObject({ refunds: [2000], balance: 4000 });
  });

  /** A paid charge, a refund whose call meets `fault`, the retry after the dispatch lease: refunded once. */
  async function lostRefund(order: string, fault: 'reset' | 'drop') {
    const { transaction_id: id } = await paidCharge('7000', order);
    sim.refundFault = fault;
    const first = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id, amount: 3000, subject: 'anulación' },
    });
    sim.refundFault = 'none';
    expect(first.json().nullify.status_nullify).toBe('complete');
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1_000);
    expect(await runRefundDispatch(t.ctx, { limit: 10 })).toBe(1);
    const n = await t.ctx.db
      .selectFrom('nullifications')
      .selectAll()
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(n.status).toBe('reverse_completed');
    expect(sim.charges.get(id)).toMatchObject({ refunds: [3000], balance: 4000 });
    return sim.calls.filter((c) => c.key === id).map((c) => c.op);
  }

  it('a refund Transbank applied whose answer was lost is recognised by status: refunded once', async () => {
    expect(await lostRefund('oc-lost-refund', 'reset')).toEqual(['authorize', 'refund', 'status']);
  });

  it('a refund that never reached Transbank is sent on the retry, once', async () => {
    expect(await lostRefund('oc-dropped-refund', 'drop')).toEqual([
      'authorize',
      'refund',
      'status',
      'refund',
    ]);
  });

  it('POST /api/suscriptionsdeletecards: the due work deletes the inscription at Transbank', async () => {
    const card = await cardOf(active);
    const before = sim.users.size;
    const res = await t.call(shop, {
      method: 'POST',
      url: '/api/suscriptionsdeletecards',
      sign: true,
      body: { card: card.id },
    });
    expect(res.json()).toMatchObject({ status: 'Delete' });
    // Sent by the paced due work, not in the request (decision 1105).
    await drainDueWork(t.ctx);
    expect(sim.users.size).toBe(before - 1);
    expect(sim.calls.at(-1)?.op).toBe('delete');
  });
});

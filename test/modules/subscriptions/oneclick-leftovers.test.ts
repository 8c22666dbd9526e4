// Decisions 1005 to 1007: what decisions 910, 988 and 990 left open about charging through Transbank's Oneclick Mall,
// through the app's routes and due work, the real `transbank-sdk` talking to the local simulator (which, as
// Transbank, refuses a repeated buy order, parent or child, and one longer than 26 characters).
//   1005: a charge the merchant asked for (POST /api/sutransaction) stays charged when the subscription ends while
//         the charge is at Transbank; a recurring try in that window is refunded (decision 910).
//   1006: each charge sends Transbank its own buy order (the payment's id), whatever `order` text it carries.
//   1007: a suspended subscription keeps its card's inscription; it is deleted when the subscription ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { OneclickSimulator } from '../../support/oneclick-simulator.ts';
import {
  oneclickEnrolled,
  startOneclickShop,
  oneclickVisa as visa,
} from '../../support/oneclick-shop.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { createPlan, createSuClient, cycleDueNow, newCardLink } from './helpers.ts';

const mastercard = '5186059559590568';
const form = { 'content-type': 'application/x-www-form-urlencoded' };

let t: TestApp;
let sim: OneclickSimulator;
let shop: TestAccount;
beforeAll(async () => {
  ({ t, sim, shop } = await startOneclickShop('Club Pendiente', 'cf'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/** A new client subscribed to `plan` with `card` registered at the simulator: the subscription and its tbk_user. */
async function enrolled(plan: string, card: string = visa) {
  const client = await createSuClient(t, shop, {
    email: `l${Math.random().toString(16).slice(2)}@example.com`,
  });
  const { id, token } = await oneclickEnrolled(t, sim, shop, { plan, client, card });
  return { id, tbkUser: sim.inscriptions.get(token)!.tbkUser! };
}

async function endSubscription(id: string) {
  const res = await t.call(shop, { method: 'DELETE', url: `/api/sususcription/${id}`, sign: true });
  return res.json() as unknown;
}

function charge(body: Record<string, unknown>) {
  return t.call(shop, { method: 'POST', url: '/api/sutransaction', sign: true, body });
}

/** The payments of subscription `id` with what the simulator holds for each (by its buy order, the payment's id). */
async function paymentsOf(id: string) {
  const rows = await t.ctx.db
    .selectFrom('su_charges as c')
    .innerJoin('transactions as p', 'p.id', 'c.transaction_id')
    .select(['p.id', 'p.order', 'p.status', 'p.refunded_minor', 'c.kind'])
    .where('c.subscription_id', '=', id)
    .orderBy('p.created_at')
    .execute();
  return rows.map((r) => ({ ...r, atTransbank: sim.charges.get(r.id) }));
}

describe('a charge the merchant asked for, the subscription ended while it is at Transbank (decision 1005)', () => {
  it('stays charged: the answer is success, nothing is refunded, the merchant may refund it', async () => {
    const plan = await createPlan(t, shop, { name: 'Consumo' });
    const sub = await enrolled(plan);
    let ended: unknown;
    // Transbank has charged the card; the merchant's DELETE commits before its answer comes back.
    sim.whileAuthorizing = async () => {
      ended = await endSubscription(sub.id);
    };
    const res = await charge({ suscription: sub.id, amount: 8100, order: 'en-vuelo-1' });
    expect(ended).toEqual({ id: sub.id, status: 'success' });
    expect(res.json()).toMatchObject({ status: 'success', order: 'en-vuelo-1', amount: '8100' });
    await drainDueWork(t.ctx);
    const [payment] = await paymentsOf(sub.id);
    expect(payment).toMatchObject({ status: 'success', kind: 'consumption' });
    expect(String(payment!.refunded_minor)).toBe('0');
    expect(payment!.atTransbank).toMatchObject({ status: 'AUTHORIZED', balance: 8100 });
    const refunds = await t.ctx.db
      .selectFrom('nullifications')
      .select('id')
      .where('transaction_id', '=', payment!.id)
      .execute();
    expect(refunds).toEqual([]);
    expect(sim.calls.filter((c) => c.op === 'refund' && c.key === payment!.id)).toEqual([]);
    // The charge is the merchant's to keep or give back, as any payment of theirs.
    const view = await t.call(shop, {
      method: 'GET',
      url: `/api/sususcription/${sub.id}`,
      sign: true,
    });
    expect(JSON.stringify(view.json())).toContain(res.json().transaction_id as string);
  });

  it('a charge asked for after the end is refused, and one the end meets before it is sent is never sent', async () => {
    const plan = await createPlan(t, shop, { name: 'Consumo tarde' });
    const sub = await enrolled(plan);
    expect(await endSubscription(sub.id)).toEqual({ id: sub.id, status: 'success' });
    const res = await charge({ suscription: sub.id, amount: 8200, order: 'tarde-1' });
    expect(res.json()).toMatchObject({ status: 'failed', type: 'subscription_not_chargeable' });
    expect([...sim.charges.values()].filter((c) => c.amount === 8200)).toEqual([]);
  });
});

describe('the buy order each charge sends to Transbank (decision 1006)', () => {
  it("a consumption charge whose order is a cycle's order is its own charge at Transbank", async () => {
    const plan = await createPlan(t, shop, { name: 'Mensual', amount: 3100, interval: 'month' });
    const sub = await enrolled(plan);
    await cycleDueNow(t, sub.id);
    await drainDueWork(t.ctx);
    const cycleOrder = `${sub.id}-1`;
    // The merchant names the cycle's own order text for an on-demand charge: accepted, as the reference accepts it.
    const res = await charge({ suscription: sub.id, amount: 3101, order: cycleOrder });
    expect(res.json()).toMatchObject({ status: 'success', order: cycleOrder });
    const payments = await paymentsOf(sub.id);
    expect(payments.map((p) => [p.kind, p.order, p.status])).toEqual([
      ['cycle', cycleOrder, 'success'],
      ['consumption', cycleOrder, 'success'],
    ]);
    // Each payment went to Transbank under its own buy order (its id) and child buy order, both within 26
    // characters, never the merchant's order text; a status read by each finds its own amount.
    const sent = payments.map((p) => p.atTransbank!);
    expect(sent.map((c) => c.amount)).toEqual([3100, 3101]);
    expect(sent.map((c) => c.buyOrder)).toEqual(payments.map((p) => p.id));
    expect(new Set(sent.map((c) => c.childBuyOrder)).size).toBe(2);
    for (const c of sent) {
      expect(c.buyOrder.length).toBeLessThanOrEqual(26);
      expect(c.childBuyOrder.length).toBeLessThanOrEqual(26);
      expect(c.buyOrder).not.toBe(cycleOrder);
    }
  });
});

/** A new card for subscription `id` registered at the simulator through a POST /api/suinscriptionscards link. */
async function enrolNewCard(id: string, card: string) {
  const u = new URL(await newCardLink(t, shop, id));
  const page = await t.app.inject({
    method: 'POST',
    url: '/gateway/registrosuscripcion/oneclick',
    headers: form,
    payload: new URLSearchParams({
      token: u.searchParams.get('token')!,
      validacion: u.searchParams.get('validacion')!,
    }).toString(),
  });
  const token = /name="TBK_TOKEN" value="([0-9a-f]+)"/.exec(page.body)![1]!;
  const back = await fetch(`${sim.url}/oneclick/enrol`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ TBK_TOKEN: token, card }),
    redirect: 'manual',
  });
  const location = new URL(back.headers.get('location')!);
  const done = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}` });
  expect(done.body).toContain('Tarjeta registrada');
  return sim.inscriptions.get(token)!.tbkUser!;
}

async function statusOf(id: string) {
  const row = await t.ctx.db
    .selectFrom('su_subscriptions')
    .select('status')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.status;
}

describe("a suspended subscription's card (decision 1007)", () => {
  it('stays registered while suspended; a new card resumes it; its end deletes both inscriptions', async () => {
    const plan = await createPlan(t, shop, {
      name: 'Sin reintentos',
      amount: 4400,
      interval: 'month',
      retries_max: 0,
    });
    const sub = await enrolled(plan, mastercard);
    await cycleDueNow(t, sub.id);
    await drainDueWork(t.ctx);
    expect(await statusOf(sub.id)).toBe('suspended');
    // Suspended is not ended: the inscription is kept, nothing is queued for removal.
    expect(sim.users.has(sub.tbkUser)).toBe(true);
    expect(sim.calls.filter((c) => c.op === 'delete' && c.key === sub.tbkUser)).toEqual([]);
    const queued = await t.ctx.db
      .selectFrom('oneclick_card_removals as r')
      .innerJoin('su_cards as c', 'c.id', 'r.card_id')
      .select('r.state')
      .where('c.subscription_id', '=', sub.id)
      .execute();
    expect(queued).toEqual([]);

    // The payer resumes it with a new card: the overdue cycle is charged on it.
    const visaUser = await enrolNewCard(sub.id, visa);
    await drainDueWork(t.ctx);
    expect(await statusOf(sub.id)).toBe('active');
    const paid = (await paymentsOf(sub.id)).filter((p) => p.status === 'success');
    expect(paid.map((p) => p.atTransbank?.amount)).toEqual([4400]);

    // Its end (not its suspension) deletes every card's inscription at Transbank.
    expect(await endSubscription(sub.id)).toEqual({ id: sub.id, status: 'success' });
    // Removals are sent at a bounded pace, a few a beat (decision 1065): beats until none is left.
    for (let beat = 0; beat < 10; beat++) {
      if ((await drainDueWork(t.ctx))['oneclick-card-removals'] === 0) break;
    }
    expect(sim.users.has(sub.tbkUser)).toBe(false);
    expect(sim.users.has(visaUser)).toBe(false);
  });
});

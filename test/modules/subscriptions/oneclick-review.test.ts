// Review of subscriptions in production with Transbank Oneclick Mall (decision 960): each finding proven through
// the app's HTTP routes against the real `transbank-sdk` talking to the local simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { OneclickSimulator } from '../../support/oneclick-simulator.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import {
  oneclickEnrolled,
  oneclickInscription,
  startOneclickShop,
  oneclickVisa as visa,
  setOneclickProcessor,
} from '../../support/oneclick-shop.ts';
import { runBilling } from '../../../src/modules/subscriptions/billing.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { subscriptionLimits } from '../../../src/limits/index.ts';
import { createPlan, createSuClient, cycleDueNow } from './helpers.ts';
import { nullify } from '../refunds/helpers.ts';

let t: TestApp;
let sim: OneclickSimulator;
let shop: TestAccount;
let plan: string;
beforeAll(async () => {
  ({ t, sim, shop } = await startOneclickShop('Club Revisado', 'cd'));
  plan = await createPlan(t, shop, { name: 'Consumo revisado' });
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const newClient = () =>
  createSuClient(t, shop, { email: `r${Math.random().toString(16).slice(2)}@example.com` });

/** A new subscription and an inscription started on its link, the card registered at Transbank: `start` gives the
 * path of Cobro's return URL. */
async function startedInscription(card: string, onPlan = plan) {
  const s = await oneclickInscription(t, sim, shop, {
    plan: onPlan,
    client: await newClient(),
    card,
  });
  return { id: s.id, start: async () => (await s.start()).back };
}

async function enrolled(card: string, onPlan = plan): Promise<string> {
  return (await oneclickEnrolled(t, sim, shop, { plan: onPlan, client: await newClient(), card }))
    .id;
}

/** The subscription's cards not deleted. */
function liveCardsOf(subscriptionId: string) {
  return t.ctx.db
    .selectFrom('su_cards')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('deleted_at', 'is', null)
    .execute();
}

function charge(body: Record<string, unknown>) {
  return t.call(shop, { method: 'POST', url: '/api/sutransaction', sign: true, body });
}

async function ledgerHolds() {
  const verify = await dispatch(['ledger', 'verify'], t.ctx);
  expect(verify.exitCode, verify.stdout + verify.stderr).toBe(0);
}

describe('a lost authorize answer retried while Transbank still decides it', () => {
  it('the resend that meets the duplicate buy order reads the status: the charge Transbank made is recorded', async () => {
    const sub = await enrolled(visa);
    sim.authorizeFault = 'slow';
    const first = await charge({ suscription: sub, amount: '3100', order: 'slow-1' });
    sim.authorizeFault = 'none';
    expect(first.json().status).not.toBe('success');
    // The merchant retries at once: Transbank's status still says 404, then the first authorize completes and the
    // resend of the same buy order is refused as a duplicate.
    const retry = await charge({ suscription: sub, amount: '3100', order: 'slow-1' });
    const made = [...sim.charges.values()].filter((c) => c.amount === 3100);
    expect(made).toHaveLength(1);
    expect(made[0]!.status).toBe('AUTHORIZED');
    expect(retry.json()).toMatchObject({ status: 'success', amount: '3100' });
    const payment = await t.ctx.db
      .selectFrom('transactions')
      .select(['status', 'id'])
      .where('id', '=', made[0]!.buyOrder)
      .executeTakeFirstOrThrow();
    expect(payment.status).toBe('success');
    // Cobro's record of the charge says approved, so the charge can be given back through Oneclick.
    const refund = await nullify(t, shop, { id: payment.id, amount: 3100, subject: 'devolución' });
    expect(refund.json().nullify).toMatchObject({ status_nullify: 'reverse_completed' });
    expect(sim.charges.get(payment.id)).toMatchObject({ status: 'REVERSED' });
    await ledgerHolds();
  });
});

describe('two inscriptions of one enrolment link, both registered at Transbank', () => {
  it('the card Cobro does not keep is deleted at Transbank, whichever return comes first', async () => {
    const s = await startedInscription(visa);
    const [a, b] = [await s.start(), await s.start()];
    const users = sim.users.size;
    const [ra, rb] = await Promise.all([
      t.app.inject({ method: 'GET', url: a }),
      t.app.inject({ method: 'GET', url: b }),
    ]);
    expect(ra.body).toContain('Tarjeta registrada');
    expect(rb.body).toContain('Tarjeta registrada');
    const cards = await liveCardsOf(s.id);
    // Each return that finishes its inscription registers a tbk_user; only the cards Cobro keeps may stay live.
    const finished = sim.calls.filter((c) => c.op === 'finish').length;
    expect(finished).toBeGreaterThan(0);
    expect(sim.users.size - users).toBe(cards.length);
  });
});

describe('an enrolled Oneclick link whose card the merchant removed (decision 1075)', () => {
  it('says the card was removed, not "activa", and starts no inscription again', async () => {
    const s = await startedInscription(visa);
    const back = await s.start();
    expect((await t.app.inject({ method: 'GET', url: back })).body).toContain('está activa');
    const [card] = await liveCardsOf(s.id);
    const removed = await t.call(shop, {
      method: 'POST',
      url: '/api/suscriptionsdeletecards',
      sign: true,
      body: { card: card!.id },
    });
    expect(removed.json()).toMatchObject({ status: 'Delete' });
    const link = await t.ctx.db
      .selectFrom('su_enrolments')
      .select(['token', 'validacion'])
      .where('subscription_id', '=', s.id)
      .executeTakeFirstOrThrow();
    const starts = sim.calls.filter((c) => c.op === 'start').length;
    for (const page of [
      await t.app.inject({ method: 'GET', url: back }),
      await t.app.inject({
        method: 'GET',
        url: `/gateway/registrosuscripcion?${new URLSearchParams(link).toString()}`,
      }),
      await t.app.inject({
        method: 'POST',
        url: '/gateway/registrosuscripcion/oneclick',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(link).toString(),
      }),
    ]) {
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('está activa');
      expect(page.body).toContain('La tarjeta registrada con este enlace fue eliminada');
    }
    expect(sim.calls.filter((c) => c.op === 'start').length).toBe(starts);
    expect(await liveCardsOf(s.id)).toHaveLength(0);
  });
});

describe("two returns of the same TBK_TOKEN at once (a double submit of Transbank's return form)", () => {
  it('the second waits for the first and shows the card registered (decision 990)', async () => {
    const s = await startedInscription(visa);
    const back = await s.start();
    let second: { body: string } | 'waiting' = 'waiting';
    let secondDone: Promise<{ body: string }> | null = null;
    sim.whileFinishing = async () => {
      // The first return is at Transbank: the second arrives now and is given a second to answer.
      secondDone = t.app.inject({ method: 'GET', url: back });
      const timer = new Promise<'waiting'>((resolve) => {
        setTimeout(() => resolve('waiting'), 1_000);
      });
      second = await Promise.race([secondDone, timer]);
    };
    const first = await t.app.inject({ method: 'GET', url: back });
    expect(first.body).toContain('Tarjeta registrada');
    // Before decision 990 the second answered at once that the inscription had not completed.
    expect(second).toBe('waiting');
    const late = await secondDone!;
    expect(late.body).toContain('Tarjeta registrada');
    expect(late.body).not.toContain('no se completó');
    expect(
      sim.calls.filter((c) => c.op === 'finish' && c.key === back.split('TBK_TOKEN=')[1]),
    ).toHaveLength(1);
  });
});

describe('a return that outlives its lease on the inscription', () => {
  it('is taken over by a reload; the late first finish does not delete the card the reload kept', async () => {
    const s = await startedInscription(visa);
    const back = await s.start();
    let reload: { body: string } | null = null;
    sim.whileFinishing = async () => {
      t.clock.advanceMs(subscriptionLimits.inscriptionFinishLeaseMs);
      reload = await t.app.inject({ method: 'GET', url: back });
    };
    const first = await t.app.inject({ method: 'GET', url: back });
    expect(reload!.body).toContain('Tarjeta registrada');
    expect(first.body).toContain('Tarjeta registrada');
    const cards = await liveCardsOf(s.id);
    expect(cards).toHaveLength(1);
    // The simulator answers both finishes with the same tbk_user: the card Cobro kept names it, so it stays.
    const token = back.split('TBK_TOKEN=')[1]!;
    expect(sim.users.has(sim.inscriptions.get(token)!.tbkUser!)).toBe(true);
  });
});

describe("a refund after the account's Oneclick child store changed", () => {
  it('is sent under the store that made the charge, which Transbank accepts', async () => {
    const sub = await enrolled(visa);
    const paid = await charge({ suscription: sub, amount: '5200', order: 'store-1' });
    expect(paid.json()).toMatchObject({ status: 'success' });
    const id = [...sim.charges.values()].find((c) => c.amount === 5200)!.buyOrder;
    // The merchant moves its subscriptions to another store of the same mall.
    const newStore = '597055555543';
    const set = await setOneclickProcessor(t, sim, shop.id, newStore);
    expect(set.exitCode, set.stderr).toBe(0);
    const old = sim.childCommerceCode;
    (sim as { childCommerceCode: string }).childCommerceCode = newStore;
    try {
      const res = await nullify(t, shop, { id, amount: 5200, subject: 'devolución' });
      expect(res.json().nullify).toMatchObject({ status_nullify: 'reverse_completed' });
      expect(sim.charges.get(id)).toMatchObject({ refunds: [5200], status: 'REVERSED' });
      await ledgerHolds();
    } finally {
      (sim as { childCommerceCode: string }).childCommerceCode = old;
      await setOneclickProcessor(t, sim, shop.id, old);
    }
  });
});

describe('a refund Transbank answers for another amount than asked (decision 989, as 996 for Webpay)', () => {
  async function paidCharge(amount: number, order: string) {
    const sub = await enrolled(visa);
    const paid = await charge({ suscription: sub, amount: String(amount), order });
    expect(paid.json()).toMatchObject({ status: 'success' });
    return [...sim.charges.values()].find((c) => c.amount === amount)!.buyOrder;
  }
  async function refunded(id: string, amount: number) {
    try {
      return await nullify(t, shop, { id, amount, subject: 'devolución' });
    } finally {
      sim.rewriteRefund = null;
    }
  }
  async function refundRow(id: string) {
    return t.ctx.db
      .selectFrom('nullifications')
      .select(['status', 'dispatch_due_at'])
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow();
  }

  it('a partial refund answered REVERSED (the whole charge) is not recorded as the part asked', async () => {
    const id = await paidCharge(9310, 'reversed-partial');
    sim.rewriteRefund = () => ({ type: 'REVERSED' });
    const res = await refunded(id, 3000);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().nullify.status_nullify).not.toBe('reverse_completed');
    expect(await refundRow(id)).toEqual({ status: 'complete', dispatch_due_at: null });
    await ledgerHolds();
  });

  it('a refund answered NULLIFIED for another amount is not recorded as the one asked', async () => {
    const id = await paidCharge(9320, 'nullified-other');
    sim.rewriteRefund = (a) => ({ ...a, nullified_amount: 9320 });
    const res = await refunded(id, 2000);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().nullify.status_nullify).not.toBe('reverse_completed');
    expect(await refundRow(id)).toEqual({ status: 'complete', dispatch_due_at: null });
    await ledgerHolds();
  });

  it('a whole refund answered REVERSED and a partial one answered with its own amount are recorded (holds)', async () => {
    const whole = await paidCharge(9330, 'reversed-whole');
    expect((await refunded(whole, 9330)).json().nullify.status_nullify).toBe('reverse_completed');
    const part = await paidCharge(9340, 'nullified-part');
    sim.rewriteRefund = (a) => ({ ...a, nullified_amount: String(a.nullified_amount) });
    expect((await refunded(part, 1000)).json().nullify.status_nullify).toBe('reverse_completed');
    await ledgerHolds();
  });
});

describe('what holds', () => {
  it('amounts that are not an exact integer string never reach Transbank', async () => {
    const sub = await enrolled(visa);
    const before = sim.calls.filter((c) => c.op === 'authorize').length;
    const answers: Record<string, unknown> = {};
    for (const amount of ['1e3', ' 100', '0x10', '100.5', '100.0', '-5', '0', '', '9'.repeat(30)]) {
      const res = await charge({
        suscription: sub,
        amount,
        order: `amt-${amount.length}-${amount}`,
      });
      answers[amount] = [res.statusCode, res.json().status];
    }
    expect(
      sim.calls.filter((c) => c.op === 'authorize').length - before,
      JSON.stringify(answers),
    ).toBe(0);
  });
});

describe('two billing workers on one due Oneclick cycle', () => {
  it('the worker that starts while the first one is at Transbank charges nothing: one authorize, one callback', async () => {
    const monthly = await createPlan(t, shop, {
      name: 'Mensual revisado',
      amount: 8800,
      interval: 'month',
      url_notify_payment: 'https://shop.example.com/pay',
    });
    const created = { id: await enrolled(visa, monthly) };
    await cycleDueNow(t, created.id);
    let second = -1;
    sim.whileAuthorizing = async () => {
      second = await runBilling(t.ctx, { accountId: shop.id, limit: 10 });
    };
    const first = await runBilling(t.ctx, { accountId: shop.id, limit: 10 });
    expect(first).toBeGreaterThan(0);
    expect(second).toBe(0);
    const made = [...sim.charges.values()].filter((c) => c.amount === 8800);
    expect(made).toHaveLength(1);
    const callbacks = await t.ctx.db
      .selectFrom('notifications')
      .select('event_type')
      .where('url', '=', 'https://shop.example.com/pay')
      .execute();
    expect(callbacks.map((c) => c.event_type)).toEqual(['subscription.charge']);
    await ledgerHolds();
  });
});

describe('a card removed while Transbank is slow to delete its inscription', () => {
  it('holds no database lock over the call: a retry of the removal answers at once', async () => {
    // The delete is sent by the due work since decision 1105 (the request only records the removal).
    const sub = await enrolled(visa);
    const card = await t.ctx.db
      .selectFrom('su_cards')
      .select('id')
      .where('subscription_id', '=', sub)
      .executeTakeFirstOrThrow();
    const remove = () =>
      t.call(shop, {
        method: 'POST',
        url: '/api/suscriptionsdeletecards',
        sign: true,
        body: { card: card.id },
      });
    // While Transbank holds the first delete, the merchant (or another request on the same database) goes on: it
    // must not wait for Transbank's answer.
    let during: { statusCode: number; body: string } | 'stalled' = 'stalled';
    sim.whileDeleting = async () => {
      const timer = new Promise<'stalled'>((resolve) => {
        setTimeout(() => resolve('stalled'), 2_000);
      });
      during = await Promise.race([remove(), timer]);
    };
    const first = await remove();
    expect(first.json()).toMatchObject({ status: 'Delete', card: card.id });
    await drainDueWork(t.ctx);
    expect(during).not.toBe('stalled');
    expect(sim.calls.filter((c) => c.op === 'delete').length).toBeGreaterThan(0);
  });
});

describe('a recurring try whose authorize Transbank was still deciding', () => {
  it('is resumed after its lease and recorded as the charge Transbank made: one success callback', async () => {
    const monthly = await createPlan(t, shop, {
      name: 'Mensual lento',
      amount: 7700,
      interval: 'month',
      url_notify_payment: 'https://shop.example.com/slow',
    });
    const sub = await enrolled(visa, monthly);
    await cycleDueNow(t, sub);
    sim.authorizeFault = 'slow';
    await expect(runBilling(t.ctx, { accountId: shop.id, limit: 10 })).rejects.toThrow();
    sim.authorizeFault = 'none';
    t.clock.advanceMs(subscriptionLimits.chargeLeaseMs + 1_000);
    await runBilling(t.ctx, { accountId: shop.id, limit: 10 });
    const made = [...sim.charges.values()].filter((c) => c.amount === 7700);
    expect(made.map((c) => c.status)).toEqual(['AUTHORIZED']);
    const payment = await t.ctx.db
      .selectFrom('transactions')
      .select('status')
      .where('id', '=', made[0]!.buyOrder)
      .executeTakeFirstOrThrow();
    expect(payment.status).toBe('success');
    const callbacks = await t.ctx.db
      .selectFrom('notifications')
      .select('body')
      .where('url', '=', 'https://shop.example.com/slow')
      .execute();
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0]!.body).toContain('"status":"success"');
    await ledgerHolds();
  });
});

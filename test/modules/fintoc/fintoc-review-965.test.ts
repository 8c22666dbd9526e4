// Review of the Fintoc connector (decision 965): bank-transfer sales (the webhook, its signature, the payer's return,
// their race), payouts sent as Fintoc transfers and `cobro fintoc reconcile`, through HTTP and the CLI against the
// simulator. The findings' tests failed before decision 965; the others show an area that held.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import {
  fintocShop,
  startFintocShop,
  openFintocSession,
  postFintocWebhook,
} from '../../support/fintoc-shop.ts';
import { capturesOf, pathOf, saleStatusOf } from '../transactions/helpers.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { fintocLimits } from '../../../src/limits/index.ts';
import { balance, payout } from '../wallet/wallet-helpers.ts';

type Obj = Record<string, unknown>;

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Revisada', 'a9', {
    payouts: { fundMinor: 100_000 },
  }));
  ({ shop: other } = await fintocShop(t, sim, 'Otra Tienda'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/** A sale sent to Fintoc's page; its Fintoc session id. */
const openSession = (order: string, amount: number) => openFintocSession(t, shop, order, amount);

/** The payer pays at the simulator; the return path Fintoc sends the payer to, and the session as Fintoc shows it. */
async function pay(session: string) {
  const back = await fetch(`${sim.url}/pay/${session}/paid`, { redirect: 'manual' });
  expect(back.status).toBe(303);
  const s = sim.sessions.get(session)!;
  return { back: pathOf(back.headers.get('location')!), s };
}

/** The session's payment intent as Fintoc's payment_intent.* events carry it (the session's metadata with it). */
function intentOf(s: Obj): Obj {
  const intent = (s.payment_resource as { payment_intent: Obj }).payment_intent;
  return { ...intent, metadata: s.metadata };
}

function webhook(
  type: string,
  data: Obj,
  o: { account?: string; atSeconds?: number; secret?: string } = {},
) {
  return postFintocWebhook(t, sim, o.account ?? shop.id, type, data, o.atSeconds);
}

const statusOf = (id: string) => saleStatusOf(t, id);
const captures = (id: string) => capturesOf(t, id);

describe('Fintoc payments: what the webhook and the return say was paid', () => {
  it('a payment_intent.succeeded for less than the sale does not pay it', async () => {
    const { sale, session } = await openSession('rv-1', 15000);
    const { s } = await pay(session);
    const res = await webhook('payment_intent.succeeded', { ...intentOf(s), amount: 1 });
    expect(res.statusCode).toBe(200);
    expect(res.json().result).not.toBe('approved');
    expect(await statusOf(sale.id)).not.toBe('success');
    expect(await captures(sale.id)).toBe(0);
  });

  it('a checkout_session.finished paid in another currency does not pay the sale', async () => {
    const { sale, session } = await openSession('rv-2', 12000);
    const { s } = await pay(session);
    const intent = (s.payment_resource as { payment_intent: Obj }).payment_intent;
    const data = { ...s, payment_resource: { payment_intent: { ...intent, currency: 'USD' } } };
    const res = await webhook('checkout_session.finished', data);
    expect(res.json().result).not.toBe('approved');
    expect(await statusOf(sale.id)).not.toBe('success');
  });

  it("the payer's return does not pay a sale Fintoc shows paid for another amount", async () => {
    const { sale, session } = await openSession('rv-3', 9000);
    const { back, s } = await pay(session);
    (s.payment_resource as { payment_intent: Obj }).payment_intent.amount = 900;
    const page = await t.app.inject({ method: 'GET', url: back });
    expect(page.body).not.toContain('Pago exitoso');
    expect(await statusOf(sale.id)).not.toBe('success');
    expect(await captures(sale.id)).toBe(0);
  });

  it('an amount as the string of the same integer pays the sale; a decimal string does not', async () => {
    const a = await openSession('rv-4', 5000);
    const paidA = await pay(a.session);
    const half = await webhook('payment_intent.succeeded', {
      ...intentOf(paidA.s),
      amount: '5000.5',
    });
    expect(half.json().result).not.toBe('approved');
    expect(await statusOf(a.sale.id)).not.toBe('success');
    const b = await openSession('rv-5', 5000);
    const paidB = await pay(b.session);
    const same = await webhook('payment_intent.succeeded', {
      ...intentOf(paidB.s),
      amount: '5000',
    });
    expect(same.json().result).toBe('approved');
    expect(await statusOf(b.sale.id)).toBe('success');
  });
});

describe('Fintoc webhooks: signature, replay and ownership (areas that held)', () => {
  it('a signature too old, from the future or under another secret is refused; a replay is a duplicate', async () => {
    const { sale, session } = await openSession('rv-6', 4000);
    const { s } = await pay(session);
    const now = Math.floor(Date.now() / 1000);
    for (const atSeconds of [now - 301, now + 301]) {
      const res = await webhook('checkout_session.finished', { ...s }, { atSeconds });
      expect(res.statusCode).toBe(401);
    }
    const forged = sim.signedEvent('checkout_session.finished', { ...s });
    const bad = await t.app.inject({
      method: 'POST',
      url: `/webhooks/fintoc/${shop.id}`,
      headers: {
        'content-type': 'application/json',
        'fintoc-signature': forged.signature.replace(/v1=.*/, `v1=${'0'.repeat(64)}`),
      },
      payload: forged.body,
    });
    expect(bad.statusCode).toBe(401);
    expect(await statusOf(sale.id)).toBe('pending');
    const ev = sim.signedEvent('checkout_session.finished', { ...s });
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: `/webhooks/fintoc/${shop.id}`,
        headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
        payload: ev.body,
      });
    expect((await send()).json().result).toBe('approved');
    expect((await send()).json().result).toBe('duplicate');
    expect(await captures(sale.id)).toBe(1);
  });

  it("another account's webhook naming this account's payment changes nothing", async () => {
    const { sale, session } = await openSession('rv-7', 4500);
    const { s } = await pay(session);
    const res = await webhook('payment_intent.succeeded', intentOf(s), { account: other.id });
    expect(res.json().result).toBe('unknown_session');
    const finished = await webhook('checkout_session.finished', { ...s }, { account: other.id });
    expect(finished.json().result).toBe('unknown_session');
    expect(await statusOf(sale.id)).toBe('pending');
  });

  it('the webhook, its replay and the return at once settle each sale once', async () => {
    const sales = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const { sale, session } = await openSession(`rv-race-${i}`, 3000 + i);
        return { sale, ...(await pay(session)) };
      }),
    );
    await Promise.all(
      sales.flatMap(({ s, back }) => {
        const ev = sim.signedEvent('checkout_session.finished', { ...s });
        const hook = () =>
          t.app.inject({
            method: 'POST',
            url: `/webhooks/fintoc/${shop.id}`,
            headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
            payload: ev.body,
          });
        return [
          hook(),
          hook(),
          webhook('payment_intent.succeeded', intentOf(s)),
          t.app.inject({ method: 'GET', url: back }),
          t.app.inject({ method: 'GET', url: back }),
        ];
      }),
    );
    for (const { sale } of sales) {
      expect(await statusOf(sale.id)).toBe('success');
      expect(await captures(sale.id)).toBe(1);
    }
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });
});

describe('Fintoc payouts: a transfer event that names another transfer', () => {
  it('a failed event for a second transfer naming the payout does not give its money back', async () => {
    const id = (await payout(t, shop, { amount: 2500, order: 'rv-p1' })).json()
      .identifier_payout as string;
    await drainDueWork(t.ctx);
    const held = await balance(t, shop);
    const sent = [...sim.transfers.values()].find(
      (x) => (x.metadata as Obj).cobro_payout_id === id,
    )!;
    // Fintoc made the payout's transfer (pending); an event about another transfer naming the payout fails.
    const res = await webhook('transfer.outbound.failed', {
      ...sent,
      id: 'tr_not_the_one_sent',
      status: 'failed',
    });
    expect(res.json().result).not.toBe('applied');
    const row = await t.ctx.db
      .selectFrom('payouts')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('processing');
    expect(await balance(t, shop)).toBe(held);
    // The transfer Cobro sent succeeds: the payout is paid, once.
    const ok = await webhook('transfer.outbound.succeeded', { ...sent, status: 'succeeded' });
    expect(ok.json().result).toBe('applied');
    expect(await balance(t, shop)).toBe(held);
  });
});

describe('Fintoc events delivered to two accounts of one Fintoc organisation', () => {
  it("one event id delivered to both accounts' endpoints is applied by the account it concerns", async () => {
    // Two Cobro accounts set up with the same Fintoc keys (one merchant's two shops): Fintoc sends each event to
    // every endpoint registered, with one id. The other shop's copy, first, must not make this shop's a duplicate.
    const id = (await payout(t, shop, { amount: 1800, order: 'rv-p2' })).json()
      .identifier_payout as string;
    await drainDueWork(t.ctx);
    const sent = [...sim.transfers.values()].find(
      (x) => (x.metadata as Obj).cobro_payout_id === id,
    )!;
    const ev = sim.signedEvent('transfer.outbound.succeeded', { ...sent, status: 'succeeded' });
    const to = (account: string) =>
      t.app.inject({
        method: 'POST',
        url: `/webhooks/fintoc/${account}`,
        headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
        payload: ev.body,
      });
    expect((await to(other.id)).json().result).toBe('unknown_payout');
    expect((await to(shop.id)).json().result).toBe('applied');
    expect((await to(shop.id)).json().result).toBe('duplicate');
    const row = await t.ctx.db
      .selectFrom('payouts')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('success');
  });
});

describe('cobro fintoc reconcile: the movements it reads', () => {
  it('a movement whose amount is not an integer is reported, not a crash of the whole run', async () => {
    sim.extraMovements.push({
      id: 'mov_decimal',
      object: 'movement',
      amount: '1500.50',
      currency: 'CLP',
      direction: 'inbound',
      resource_id: null,
    });
    const out = await dispatch(['fintoc', 'reconcile', '--account', shop.id, '--json'], t.ctx);
    sim.extraMovements.length = 0;
    expect(out.stderr).toBe('');
    const report = JSON.parse(out.stdout) as { findings: { subject: string; detail: string }[] };
    expect(report.findings.find((f) => f.subject === 'mov_decimal')?.detail).toContain(
      'not an integer',
    );
  });

  it('a movement of the right amount in another currency does not match a sale', async () => {
    const { sale, session } = await openSession('rv-8', 7700);
    const { s } = await pay(session);
    expect((await webhook('checkout_session.finished', { ...s })).json().result).toBe('approved');
    const intent = (s.payment_resource as { payment_intent: Obj }).payment_intent;
    // Fintoc's account shows the intent's money in dollars only.
    intent.status = 'pending';
    sim.extraMovements.push({
      id: 'mov_usd',
      object: 'movement',
      amount: 7700,
      currency: 'USD',
      direction: 'inbound',
      resource_id: intent.id,
    });
    t.clock.advanceMs(fintocLimits.movementWindowMs + 60_000);
    const out = await dispatch(['fintoc', 'reconcile', '--account', shop.id, '--json'], t.ctx);
    sim.extraMovements.length = 0;
    intent.status = 'succeeded';
    const report = JSON.parse(out.stdout) as {
      findings: { kind: string; subject: string; amountMinor: string }[];
    };
    expect(report.findings).toContainEqual(
      expect.objectContaining({ kind: 'unmatched_movement', subject: 'mov_usd' }),
    );
    expect(report.findings).toContainEqual(
      expect.objectContaining({ kind: 'missing_movement', subject: sale.id, amountMinor: '7700' }),
    );
  });
});

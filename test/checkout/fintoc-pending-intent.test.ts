// Reviewer finding (r-connectors): Fintoc's payment intents can be `pending` ("Fintoc cannot provide a definitive
// status of the payment at the moment ... Fintoc will attempt to validate pending payments for up to 10 days" and
// then sends payment_intent.succeeded or payment_intent.failed; docs.fintoc.com, "Handling payment exceptions").
// Cobro reads a finished session whose intent is `pending` as a decline (sessionStatus: finished + any intent status
// but `succeeded`), and any payment_intent.* event but `succeeded` as a decline too; the later `succeeded` then finds
// the attempt decided and only logs "refund it by hand": the payer's money arrives at the merchant's Fintoc account
// and the sale is never paid in Cobro.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startFintocSimulator, type FintocSimulator } from '../support/fintoc-simulator.ts';
import { fintocShop } from '../support/fintoc-shop.ts';
import { createTransaction as create, linkParams } from '../modules/transactions/helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  sim = await startFintocSimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ef'.repeat(32) } });
  ({ shop } = await fintocShop(t, sim, 'Tienda Pendientes'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const form = { 'content-type': 'application/x-www-form-urlencoded' };

async function openSession(order: string, amount: number) {
  const sale = await create(t, shop, {
    additional_parameters: { payer_rut: '11.111.111-1' },
    order,
    amount,
    payment: 19,
  });
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: form,
    payload: new URLSearchParams({ ...linkParams(sale.url), method: '19' }).toString(),
  });
  const link = /<a class="button" href="([^"]+)" data-testid="continue-fintoc">/.exec(res.body);
  expect(link, res.body).not.toBeNull();
  const session = link![1]!.split('/').pop()!;
  return { sale, session };
}

/** The session as Fintoc shows it while the bank has not confirmed the transfer yet. */
function finishPending(session: string, intentId: string) {
  const s = sim.sessions.get(session)!;
  s.status = 'finished';
  s.payment_resource = {
    payment_intent: {
      id: intentId,
      object: 'payment_intent',
      status: 'pending',
      amount: s.amount,
      currency: s.currency,
      metadata: s.metadata,
    },
  };
  return s;
}

async function webhook(type: string, data: Record<string, unknown>) {
  const ev = sim.signedEvent(type, data);
  return t.app.inject({
    method: 'POST',
    url: `/webhooks/fintoc/${shop.id}`,
    headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
    payload: ev.body,
  });
}

async function statusOf(id: string) {
  const row = await t.ctx.db
    .selectFrom('transactions')
    .select('status')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.status;
}

async function captures(id: string) {
  const j = await t.ctx.db
    .selectFrom('journal_entries')
    .select('kind')
    .where('reference', '=', id)
    .execute();
  return j.filter((x) => x.kind === 'transaction.capture').length;
}

describe('a Fintoc payment the bank confirms later (pending payment intent)', () => {
  it('a finished session whose intent is pending is not a decline; the later succeeded pays the sale', async () => {
    const { sale, session } = await openSession('pend-1', 12000);
    const s = finishPending(session, 'pi_pending_1');
    const finished = await webhook('checkout_session.finished', { ...s });
    expect(finished.statusCode).toBe(200);
    // Not decided yet: Fintoc has not said whether the money arrived.
    expect(finished.json().result).not.toBe('declined');
    const intent = (s.payment_resource as { payment_intent: Record<string, unknown> })
      .payment_intent;
    intent.status = 'succeeded';
    await webhook('payment_intent.succeeded', { ...intent });
    expect(await statusOf(sale.id)).toBe('success');
    expect(await captures(sale.id)).toBe(1);
  });

  it('a payment_intent.pending event is not a decline; the later succeeded pays the sale', async () => {
    const { sale, session } = await openSession('pend-2', 8000);
    const s = finishPending(session, 'pi_pending_2');
    const intent = (s.payment_resource as { payment_intent: Record<string, unknown> })
      .payment_intent;
    const pending = await webhook('payment_intent.pending', { ...intent });
    expect(pending.statusCode).toBe(200);
    expect(pending.json().result).not.toBe('declined');
    intent.status = 'succeeded';
    await webhook('payment_intent.succeeded', { ...intent });
    expect(await statusOf(sale.id)).toBe('success');
    expect(await captures(sale.id)).toBe(1);
  });
});

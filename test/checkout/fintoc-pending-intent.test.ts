// Reviewer finding (r-connectors): Fintoc's payment intents can be `pending` ("Fintoc cannot provide a definitive
// status of the payment at the moment ... Fintoc will attempt to validate pending payments for up to 10 days" and
// then sends payment_intent.succeeded or payment_intent.failed; docs.fintoc.com, "Handling payment exceptions").
// Cobro reads a finished session whose intent is `pending` as a decline (sessionStatus: finished + any intent status
// but `succeeded`), and any payment_intent.* event but `succeeded` as a decline too; the later `succeeded` then finds
// the attempt decided and only logs "refund it by hand": the payer's money arrives at the merchant's Fintoc account
// and the sale is never paid in Cobro.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../support/app.ts';
import type { FintocSimulator } from '../support/fintoc-simulator.ts';
import { startFintocShop, openFintocSession, postFintocWebhook } from '../support/fintoc-shop.ts';
import { capturesOf, saleStatusOf } from '../modules/transactions/helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Pendientes', 'ef'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const openSession = (order: string, amount: number) => openFintocSession(t, shop, order, amount);

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

const webhook = (type: string, data: Record<string, unknown>) =>
  postFintocWebhook(t, sim, shop.id, type, data);
const statusOf = (id: string) => saleStatusOf(t, id);
const captures = (id: string) => capturesOf(t, id);

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

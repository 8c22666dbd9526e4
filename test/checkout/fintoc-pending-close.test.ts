// Decision 745: a Fintoc payment the bank has not confirmed (its payment intent `pending`) keeps its session open and
// its sale held past Cobro's hold. The `fintoc-session-close` due work never expires nor declines it: it asks Fintoc
// every fintocLimits.intentPendingRecheckMs until Fintoc says succeeded or failed, and declines the try once it has
// asked for fintocLimits.intentPendingAskMsMax (Fintoc itself fails a payment it cannot validate in 10 days).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../support/app.ts';
import type { FintocSimulator } from '../support/fintoc-simulator.ts';
import { startFintocShop } from '../support/fintoc-shop.ts';
import { createTransaction, linkParams } from '../modules/transactions/helpers.ts';
import { drainDueWork } from '../../src/platform/work/due-work.ts';
import { fintocLimits, transactionLimits } from '../../src/limits/index.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Pendiente', 'be'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const afterTheHold = transactionLimits.acquirer.redirectLeaseMs + 60_000;

/** A sale whose payer finished at Fintoc while the bank has not confirmed the transfer: its id, session, intent. */
async function pendingSale(order: string) {
  const sale = await createTransaction(t, shop, {
    additional_parameters: { payer_rut: '11.111.111-1' },
    payment: 19,
    order,
    amount: 15000,
  });
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...linkParams(sale.url), method: '19' }).toString(),
  });
  const link = /href="([^"]+)" data-testid="continue-fintoc"/.exec(res.body);
  const session = link![1]!.split('/').pop()!;
  const s = sim.sessions.get(session)!;
  const intent = {
    id: `pi_${order}`,
    object: 'payment_intent',
    status: 'pending',
    amount: s.amount,
    currency: s.currency,
    metadata: s.metadata,
  };
  s.status = 'finished';
  s.payment_resource = { payment_intent: intent };
  return { id: sale.id, session, intent };
}

async function state(id: string) {
  const row = await t.ctx.db
    .selectFrom('transactions')
    .innerJoin('processor_sessions as s', 's.transaction_id', 'transactions.id')
    .select(['transactions.status', 's.state', 's.pending_since'])
    .where('transactions.id', '=', id)
    .executeTakeFirstOrThrow();
  return row;
}

const asked = (session: string) =>
  sim.calls.filter((c) => c === `GET /v1/checkout_sessions/${session}`).length;

describe('a pending Fintoc payment after the hold', () => {
  it('is neither expired nor declined, is asked about at the slower pace, and is paid once Fintoc says succeeded', async () => {
    const { id, session, intent } = await pendingSale('pc-1');
    t.clock.advanceMs(afterTheHold);
    await drainDueWork(t.ctx);
    const held = await state(id);
    expect(held.status).toBe('pending');
    expect(held.state).toBe('redirected');
    expect(held.pending_since).not.toBeNull();
    expect(sim.calls).not.toContain(`POST /v1/checkout_sessions/${session}/expire`);
    // Not asked again at the open session's pace.
    const before = asked(session);
    t.clock.advanceMs(fintocLimits.sessionRecheckMs + 1000);
    await drainDueWork(t.ctx);
    expect(asked(session)).toBe(before);
    expect((await state(id)).state).toBe('redirected');
    // Fintoc confirms it days later; no webhook reached Cobro.
    intent.status = 'succeeded';
    t.clock.advanceMs(fintocLimits.intentPendingRecheckMs);
    await drainDueWork(t.ctx);
    expect(await state(id)).toMatchObject({ status: 'success', state: 'approved' });
  });

  it('is declined once asked about for fintocLimits.intentPendingAskMsMax', async () => {
    const { id, session } = await pendingSale('pc-2');
    t.clock.advanceMs(afterTheHold);
    await drainDueWork(t.ctx);
    expect((await state(id)).state).toBe('redirected');
    t.clock.advanceMs(fintocLimits.intentPendingAskMsMax + 1000);
    await drainDueWork(t.ctx);
    expect((await state(id)).state).toBe('declined');
    expect(sim.calls).not.toContain(`POST /v1/checkout_sessions/${session}/expire`);
  });
});

// Decision 665: a Fintoc checkout session outlives Cobro's 10-minute hold on its sale (Fintoc keeps a session open
// for a day), so it holds the sale until Fintoc says how it ended. Once the hold runs out the
// `fintoc-session-close` due work asks Fintoc: a paid session is recorded, an open one is expired at Fintoc first.
// Before, a second try opened a second session while the first stayed payable (its payment then went unrecorded),
// and the sale's expiry rejected it with the session still payable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../support/app.ts';
import type { FintocSimulator } from '../support/fintoc-simulator.ts';
import { startFintocShop } from '../support/fintoc-shop.ts';
import { createTransaction, linkParams, pathOf } from '../modules/transactions/helpers.ts';
import { drainDueWork } from '../../src/platform/work/due-work.ts';
import { transactionLimits } from '../../src/limits/index.ts';
import { formatTimestamp } from '../../src/platform/time/time-format.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Sesiones', 'cd'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const payer = { additional_parameters: { payer_rut: '11.111.111-1' }, payment: 19 };
const afterTheHold = transactionLimits.acquirer.redirectLeaseMs + 60_000;

/** The payer picks the bank transfer: Fintoc's session id from the link, or null when the page has none. */
async function tryToPay(url: string): Promise<{ session: string | null; body: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: form,
    payload: new URLSearchParams({ ...linkParams(url), method: '19' }).toString(),
  });
  expect(res.statusCode, res.body).toBe(200);
  const link = /href="([^"]+)" data-testid="continue-fintoc"/.exec(res.body);
  return { session: link === null ? null : link[1]!.split('/').pop()!, body: res.body };
}

async function payAtFintoc(session: string): Promise<string> {
  const back = await fetch(`${sim.url}/pay/${session}/paid`, { redirect: 'manual' });
  return pathOf(back.headers.get('location')!);
}

async function sale(id: string) {
  return t.ctx.db
    .selectFrom('transactions')
    .select(['status', 'rejection_reason', 'authorization_code'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
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

const intentOf = (session: string) =>
  (sim.sessions.get(session)!.payment_resource as { payment_intent: { id: string } }).payment_intent
    .id;

describe('a Fintoc session outliving the hold on its sale (decision 665)', () => {
  it('a second try waits until the first session is closed at Fintoc, which then cannot be paid', async () => {
    const created = await createTransaction(t, shop, { ...payer, order: 'lapse-1', amount: 4000 });
    const first = await tryToPay(created.url);
    expect(first.session).not.toBeNull();
    t.clock.advanceMs(afterTheHold);
    // The back button: the payer tries again before Cobro closed the first session.
    const early = await tryToPay(created.url);
    expect(early.session).toBeNull();
    expect(early.body).toContain('Estamos procesando tu pago');
    expect(sim.sessions.size).toBe(1);
    const processed = await drainDueWork(t.ctx, shop.id);
    expect(processed['fintoc-session-close']).toBe(1);
    expect(sim.sessions.get(first.session!)!.status).toBe('expired');
    expect((await sale(created.id)).status).toBe('pending');
    // Now the second try opens a second session, and the first can no longer be paid.
    const second = await tryToPay(created.url);
    expect(second.session).not.toBeNull();
    expect(second.session).not.toBe(first.session);
    await payAtFintoc(first.session!);
    expect(sim.sessions.get(first.session!)!.status).toBe('expired');
    await payAtFintoc(second.session!);
    const done = await webhook('checkout_session.finished', {
      ...sim.sessions.get(second.session!),
    });
    expect(done.json().result).toBe('approved');
    expect(await sale(created.id)).toMatchObject({
      status: 'success',
      authorization_code: intentOf(second.session!),
    });
  });

  it('a session paid at Fintoc whose webhook and return never came is recorded once the hold runs out', async () => {
    const created = await createTransaction(t, shop, { ...payer, order: 'lapse-2', amount: 6000 });
    const { session } = await tryToPay(created.url);
    await payAtFintoc(session!);
    t.clock.advanceMs(afterTheHold);
    const processed = await drainDueWork(t.ctx, shop.id);
    expect(processed['fintoc-session-close']).toBe(1);
    expect(await sale(created.id)).toMatchObject({
      status: 'success',
      authorization_code: intentOf(session!),
    });
    // The late webhook records nothing twice.
    const late = await webhook('checkout_session.finished', { ...sim.sessions.get(session!) });
    expect(late.json().result).toBe('final');
    const captures = await t.ctx.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('reference', '=', created.id)
      .where('kind', '=', 'transaction.capture')
      .execute();
    expect(captures).toHaveLength(1);
  });

  it('a sale whose expiry passes with its session open expires only after Fintoc closed the session', async () => {
    const created = await createTransaction(t, shop, {
      ...payer,
      order: 'lapse-3',
      amount: 3000,
      expired: formatTimestamp(new Date(t.clock.now().getTime() + 6 * 60_000), 'America/Santiago'),
      urlreturn: 'https://shop.example/back',
    });
    const { session } = await tryToPay(created.url);
    t.clock.advanceMs(afterTheHold);
    await drainDueWork(t.ctx, shop.id);
    expect(sim.sessions.get(session!)!.status).toBe('expired');
    expect(await sale(created.id)).toMatchObject({
      status: 'rejected',
      rejection_reason: 'expired',
    });
  });

  it('while Fintoc cannot expire the session (the payer authorising at the bank) the sale stays held; its payment is then recorded', async () => {
    const created = await createTransaction(t, shop, { ...payer, order: 'lapse-4', amount: 2000 });
    const { session } = await tryToPay(created.url);
    sim.sessions.get(session!)!.status = 'in_progress';
    t.clock.advanceMs(afterTheHold);
    await drainDueWork(t.ctx, shop.id);
    expect(sim.sessions.get(session!)!.status).toBe('in_progress');
    expect((await tryToPay(created.url)).session).toBeNull();
    expect((await sale(created.id)).status).toBe('pending');
    // The bank authorises; Fintoc's webhook settles the sale.
    sim.sessions.get(session!)!.status = 'created';
    await payAtFintoc(session!);
    const done = await webhook('checkout_session.finished', { ...sim.sessions.get(session!) });
    expect(done.json().result).toBe('approved');
    expect((await sale(created.id)).status).toBe('success');
  });

  it("Fintoc is told to expire the session when Cobro's hold on the sale ends, not a day later (decision 725)", async () => {
    const created = await createTransaction(t, shop, { ...payer, order: 'lapse-5', amount: 1500 });
    const holdEndsMs = t.clock.now().getTime() + transactionLimits.acquirer.redirectLeaseMs;
    const { session } = await tryToPay(created.url);
    // Before, Cobro sent no expires_at and Fintoc's default (a day) kept the session payable after the hold.
    const sent = String(sim.sessions.get(session!)!.expires_at);
    expect(sent).toBe(new Date(holdEndsMs).toISOString().replace('.000Z', 'Z'));
    const lease = await t.ctx.db
      .selectFrom('transactions')
      .select('attempt_lease_until')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(Date.parse(sent)).toBeLessThanOrEqual(lease.attempt_lease_until!.getTime());
    // Fintoc's adapter says its session holds the sale until closed; the claim and the expiry read that (725).
    const kept = await t.ctx.db
      .selectFrom('processor_sessions')
      .select('holds_sale')
      .where('token', '=', session!)
      .executeTakeFirstOrThrow();
    expect(kept.holds_sale).toBe(true);
  });
});

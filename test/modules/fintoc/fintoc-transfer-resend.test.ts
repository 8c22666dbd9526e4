// Decision 750: a Fintoc transfer whose answer was lost is looked up in Fintoc's list before it is sent again; a
// refused resend, or tries past fintocLimits' count or age, leave the payout `unresolved` with its money held (never
// a banking_error that gives it back while a transfer may exist); a payee bank Fintoc names no institution for is
// refused before anything is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop, fintocWebhook } from '../../support/fintoc-shop.ts';
import { dashboardBrowser } from '../../support/dashboard.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { fintocLimits } from '../../../src/limits/index.ts';
import { balance, payout } from '../wallet/wallet-helpers.ts';
import { fintocInstitutionOf, unmappedSbif } from '../../../src/modules/fintoc/institutions.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Reenvíos', 'cd', {
    payouts: { fundMinor: 100_000 },
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const posts = () => sim.calls.filter((c) => c === 'POST /v2/transfers').length;

async function rowOf(id: string) {
  const p = await t.ctx.db
    .selectFrom('payouts')
    .select(['status', 'reason_rejection'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const f = await t.ctx.db
    .selectFrom('fintoc_transfers')
    .select(['state', 'attempts'])
    .where('payout_id', '=', id)
    .executeTakeFirst();
  return { ...p, transfer: f };
}

/** A payout whose first send was dropped before Fintoc made anything (the answer lost). */
async function droppedPayout(order: string, amount: number): Promise<string> {
  sim.transferFault = 'drop';
  const id = (await payout(t, shop, { amount, order })).json().identifier_payout as string;
  await drainDueWork(t.ctx, shop.id);
  sim.transferFault = null;
  expect((await rowOf(id)).transfer).toMatchObject({ state: 'sending', attempts: 1 });
  return id;
}

async function nextTry(): Promise<void> {
  t.clock.advanceMs(fintocLimits.transferResendAfterMs + 1000);
  await drainDueWork(t.ctx, shop.id);
}

describe('a Fintoc transfer whose answer was lost', () => {
  it('is sent again when Fintoc lists no transfer for it, and the answer is recorded', async () => {
    const id = await droppedPayout('rs-send', 1200);
    const before = posts();
    await nextTry();
    expect(posts()).toBe(before + 1);
    expect(sim.calls).toContain('GET /v2/transfers');
    expect(await rowOf(id)).toMatchObject({
      status: 'processing',
      transfer: { state: 'sent', attempts: 2 },
    });
  });

  it('a refused resend leaves the payout unresolved, its money held, for the operator', async () => {
    const held = await balance(t, shop);
    const id = await droppedPayout('rs-refused', 2200);
    expect(await balance(t, shop)).toBe(held - 2200);
    sim.transferFault = 'refuse';
    await nextTry();
    sim.transferFault = null;
    expect(await rowOf(id)).toMatchObject({
      status: 'processing',
      reason_rejection: '',
      transfer: { state: 'unresolved' },
    });
    expect(await balance(t, shop)).toBe(held - 2200);
    // Nothing sends it again: later turns leave it alone.
    const after = posts();
    await nextTry();
    expect(posts()).toBe(after);
    // The reconciliation names it; the operator, having checked Fintoc, may resolve it by hand.
    const out = await dispatch(['fintoc', 'reconcile', '--account', shop.id], t.ctx);
    expect(out.stdout).toContain(`unresolved_transfer ${id} -2200 CLP`);
    // The dashboard names it as what it is (it showed "Movimiento faltante" before decision 850).
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    expect((await b.get('/dashboard/payouts')).body).toMatch(
      new RegExp(`Transferencia sin confirmar</td>\\s*<td[^>]*>${id}<`),
    );
    const resolved = await dispatch(
      ['payouts', 'resolve', id, '--status', 'banking_error', '--reason', 'no llegó a Fintoc'],
      t.ctx,
    );
    expect(resolved.exitCode, resolved.stderr).toBe(0);
    expect(await balance(t, shop)).toBe(held);

    // The operator was wrong: Fintoc made the transfer after all. Nothing moves again, but reconcile says so
    // (decision 875), where it used to match the payment and report nothing.
    const late = await fintocWebhook(t, sim, shop, 'transfer.outbound.succeeded', {
      id: 'tr_late_rs_refused',
      object: 'transfer',
      status: 'succeeded',
      amount: 2200,
      currency: 'CLP',
      metadata: { cobro_payout_id: id },
    });
    expect(late).toBe('already_final');
    expect(await balance(t, shop)).toBe(held);
    const again = await dispatch(['fintoc', 'reconcile', '--account', shop.id], t.ctx);
    expect(again.exitCode).toBe(1);
    expect(again.stdout).toContain(
      `unresolved_transfer ${id} -2200 CLP: payout given back to the wallet (banking_error) whose transfer Fintoc reports succeeded: paid twice`,
    );
  });

  it('stops sending after transferRetriesMax tries and leaves the payout unresolved', async () => {
    const id = await droppedPayout('rs-limit', 3200);
    const before = posts();
    sim.transferFault = 'drop';
    for (let i = 0; i <= fintocLimits.transferRetriesMax; i++) await nextTry();
    sim.transferFault = null;
    expect(posts()).toBe(before + fintocLimits.transferRetriesMax);
    expect(await rowOf(id)).toMatchObject({
      status: 'processing',
      transfer: { state: 'unresolved' },
    });
  });

  it('is never sent again once past the resend window (Fintoc may forget the key after 24 hours)', async () => {
    const id = await droppedPayout('rs-old', 4200);
    const before = posts();
    t.clock.advanceMs(fintocLimits.transferResendWindowMs);
    await nextTry();
    expect(posts()).toBe(before);
    expect((await rowOf(id)).transfer).toMatchObject({ state: 'unresolved' });
  });

  it('an unresolved payout is still resolved by the webhook of its transfer', async () => {
    sim.transferFault = 'reset';
    const id = (await payout(t, shop, { amount: 5200, order: 'rs-hook' })).json()
      .identifier_payout as string;
    await drainDueWork(t.ctx, shop.id);
    // Fintoc's list fails past the window: unresolved, though the transfer exists.
    sim.transferFault = null;
    sim.transferListFault = 'fail';
    t.clock.advanceMs(fintocLimits.transferResendWindowMs);
    await nextTry();
    sim.transferListFault = null;
    expect((await rowOf(id)).transfer).toMatchObject({ state: 'unresolved' });
    const made = [...sim.transfers.values()].find(
      (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === id,
    )!;
    const ev = sim.signedEvent('transfer.outbound.succeeded', { ...made, status: 'succeeded' });
    const hook = await t.app.inject({
      method: 'POST',
      url: `/webhooks/fintoc/${shop.id}`,
      headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
      payload: ev.body,
    });
    expect(hook.json().result).toBe('applied');
    expect(await rowOf(id)).toMatchObject({ status: 'success', transfer: { state: 'succeeded' } });
  });
});

describe('a payee bank Fintoc names no institution for', () => {
  it('is a banking_error before anything is sent, its money back', async () => {
    const held = await balance(t, shop);
    const before = posts();
    const id = (
      await payout(t, shop, { amount: 1300, order: 'rs-btg', accountbank_sbif: '0059' })
    ).json().identifier_payout as string;
    await drainDueWork(t.ctx, shop.id);
    expect(posts()).toBe(before);
    const row = await rowOf(id);
    expect(row).toMatchObject({ status: 'banking_error', transfer: undefined });
    expect(row.reason_rejection).toContain('0059');
    expect(await balance(t, shop)).toBe(held);
  });
});

describe("the bank catalogue and Fintoc's institution ids", () => {
  it('names every CLP bank of GET /api/banks: a Fintoc id, or refused on purpose', async () => {
    const banks = await t.ctx.db
      .selectFrom('banks')
      .select('code')
      .where('currency', '=', 'CLP')
      .execute();
    expect(banks.length).toBeGreaterThan(0);
    for (const { code } of banks) {
      const id = fintocInstitutionOf(code);
      expect(id === null ? unmappedSbif.has(code) : /^cl_[a-z_]+$/.test(id), code).toBe(true);
    }
    expect(fintocInstitutionOf('0001')).toBe('cl_banco_de_chile');
    expect(fintocInstitutionOf('0012')).toBe('cl_banco_estado');
  });
});

// Reviewer finding (r-connectors): Fintoc's Movement object (Transfers API, `GET /v2/accounts/{id}/movements`) is
//   { id, object: 'movement', account_id, amount, balance, currency, direction: 'inbound' | 'outbound', mode,
//     resource_id: 'tr_...', return_pair_id, transaction_date, type: 'transfer' | 'transfer_return' | 'fee' | ... }
// with `amount` an unsigned integer ("use the direction field to tell whether money entered or left") and the
// transfer named by `resource_id` (docs.fintoc.com, "The Movement object"). `cobro fintoc reconcile` reads a signed
// `amount` and `transfer_id` / `payment_intent_id` / `metadata`, fields the real object does not have (only the
// simulator does), so every real movement of a payout is an `unmatched_movement` and every payout, after 3 days, a
// `missing_movement`: the reconciliation reports noise and hides real differences.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop } from '../../support/fintoc-shop.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { fintocLimits } from '../../../src/limits/index.ts';
import { payout } from '../wallet/wallet-helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Conciliada', 'cd', {
    payouts: { fundMinor: 50_000 },
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

describe('cobro fintoc reconcile against the movement object Fintoc documents', () => {
  it('matches a paid payout with its outbound movement (unsigned amount, transfer in resource_id)', async () => {
    const id = (await payout(t, shop, { amount: 3000, order: 'mv-1' })).json()
      .identifier_payout as string;
    await drainDueWork(t.ctx);
    const transfer = [...sim.transfers.values()].find(
      (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === id,
    )!;
    const ev = sim.signedEvent('transfer.outbound.succeeded', { ...transfer, status: 'succeeded' });
    const hook = await t.app.inject({
      method: 'POST',
      url: `/webhooks/fintoc/${shop.id}`,
      headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
      payload: ev.body,
    });
    expect(hook.json().result).toBe('applied');
    // Fintoc's account shows the transfer as Fintoc documents a movement (the simulator's own shape is replaced).
    sim.transfers.delete(String(transfer.id));
    sim.extraMovements.push({
      id: 'mov_documented1',
      object: 'movement',
      account_id: 'acc_sim1',
      amount: 3000,
      balance: 47_000,
      currency: 'CLP',
      direction: 'outbound',
      mode: 'live',
      resource_id: transfer.id,
      return_pair_id: null,
      transaction_date: new Date(t.clock.now().getTime()).toISOString(),
      type: 'transfer',
    });
    t.clock.advanceMs(fintocLimits.movementWindowMs + 60_000);
    const out = await dispatch(['fintoc', 'reconcile', '--account', shop.id], t.ctx);
    expect(out.stdout).not.toContain('mov_documented1');
    expect(out.stdout).not.toContain(`missing_movement ${id}`);
    expect(out.stdout).toMatch(/^1 matched, 0 reported/);
  });
});

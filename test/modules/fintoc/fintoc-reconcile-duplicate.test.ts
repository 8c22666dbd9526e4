// Decision 645: `cobro fintoc reconcile` reports a second movement of one payout (money that left twice) instead of
// counting it as matched. Before, every movement naming a payout with its amount matched, so a payout paid out twice
// from the Fintoc account was reported as matched, nothing found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop } from '../../support/fintoc-shop.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { payout } from '../wallet/wallet-helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Fintoc', 'cd', {
    payouts: { fundMinor: 100_000 },
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

describe('fintoc reconcile', () => {
  it('reports a payout that left the Fintoc account twice', async () => {
    const id = (await payout(t, shop, { amount: 4000, order: 'dup-1' })).json()
      .identifier_payout as string;
    await drainDueWork(t.ctx);
    const [sent] = [...sim.transfers.values()];
    sent!.status = 'succeeded';
    const ev = sim.signedEvent('transfer.outbound.succeeded', { ...sent, status: 'succeeded' });
    const hook = await t.app.inject({
      method: 'POST',
      url: `/webhooks/fintoc/${shop.id}`,
      headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
      payload: ev.body,
    });
    expect(hook.json().result).toBe('applied');
    const clean = await dispatch(['fintoc', 'reconcile', '--account', shop.id], t.ctx);
    expect(clean.stdout).toMatch(/^1 matched, 0 reported/);

    // A second movement of the same transfer (Fintoc's movement shape, decision 750): 4000 more left the account.
    const first = [...sim.transfers.values()].find(
      (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === id,
    )!;
    sim.extraMovements.push({
      id: 'mov_second',
      object: 'movement',
      amount: 4000,
      currency: 'CLP',
      direction: 'outbound',
      resource_id: first.id,
      type: 'transfer',
    });
    const out = await dispatch(['fintoc', 'reconcile', '--account', shop.id], t.ctx);
    expect(out.stdout).toContain('mov_second');
    expect(out.exitCode).toBe(1);
  });
});

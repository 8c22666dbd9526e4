// Decision 645: a payout whose Fintoc transfer is in flight is Fintoc's to decide. Before it, an operator's
// `payouts resolve --status banking_error` gave the money back while the dispatch kept sending the transfer, whose
// `succeeded` webhook was then ignored (already final): the amount was both back in the wallet and paid out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop } from '../../support/fintoc-shop.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { fintocLimits } from '../../../src/limits/index.ts';
import { balance, payout } from '../wallet/wallet-helpers.ts';

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

describe('operator resolution of a payout sent through Fintoc', () => {
  it('refuses to resolve by hand a payout whose transfer is in flight, which Fintoc then pays once', async () => {
    sim.transferFault = 'reset';
    const created = (await payout(t, shop, { amount: 4000, order: 'op-1' })).json();
    const id = created.identifier_payout as string;
    await drainDueWork(t.ctx); // claimed, sent, answer lost: processing, fintoc_transfers `sending`
    sim.transferFault = null;
    expect(await balance(t, shop)).toBe(96_000);

    // The operator gives up on the stuck payout: refused, the transfer may have been made.
    const resolved = await dispatch(
      [
        'payouts',
        'resolve',
        id,
        '--status',
        'banking_error',
        '--reason',
        'sin respuesta de Fintoc',
      ],
      t.ctx,
    );
    expect(resolved.exitCode).not.toBe(0);
    expect(resolved.stderr).toContain('its Fintoc transfer is sending');
    expect(await balance(t, shop)).toBe(96_000);

    // The resend gets Fintoc's answer (the same transfer, by its idempotency key); its webhook pays the payout once.
    t.clock.advanceMs(fintocLimits.transferResendAfterMs + 1000);
    await drainDueWork(t.ctx);
    const sent = [...sim.transfers.values()].filter(
      (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === id,
    );
    expect(sent).toHaveLength(1);
    const ev = sim.signedEvent('transfer.outbound.succeeded', { ...sent[0]!, status: 'succeeded' });
    const hook = await t.app.inject({
      method: 'POST',
      url: `/webhooks/fintoc/${shop.id}`,
      headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
      payload: ev.body,
    });
    expect(hook.statusCode).toBe(200);
    const read = await t.call(shop, { method: 'GET', url: `/api/payout/${id}`, sign: true });
    expect(read.json().payout.status).toBe('success');
    expect(await balance(t, shop)).toBe(96_000);
  });
});

// Decision 865: a Fintoc transfer the receiving bank returned after it succeeded (decision 830) leaves two movements
// in the Fintoc account, equal and opposite: the outbound payment and the inbound `transfer_return`, each naming the
// transfer in `resource_id` and the other in `return_pair_id` (docs.fintoc.com, "The Movement object"). Before,
// the transfer's row stayed `succeeded`, so `cobro fintoc reconcile` expected one outbound movement of a payout that
// was now a banking_error and reported the return as an `unmatched_movement` ("amount differs"). The row is now
// `returned`, set in the return's own transaction, and reconcile expects both movements and reports only what
// differs from them.
import { afterEach, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop, fintocWebhook } from '../../support/fintoc-shop.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { fintocLimits } from '../../../src/limits/index.ts';
import { balance, payout } from '../wallet/wallet-helpers.ts';
import {
  down as unwiden,
  up as widen,
} from '../../../src/platform/db/migrations/0725-fintoc-transfer-returned.ts';

let t: TestApp | undefined;
let sim: FintocSimulator | undefined;
afterEach(async () => {
  await t?.close();
  await sim?.close();
});

async function started(): Promise<{ t: TestApp; sim: FintocSimulator; shop: TestAccount }> {
  const s = await startFintocShop('Tienda Conciliada', 'cd', { payouts: { fundMinor: 100_000 } });
  ({ t, sim } = s);
  return s;
}

/** A payout sent as a Fintoc transfer: its id and the simulator's transfer. */
async function sent(app: TestApp, s: FintocSimulator, shop: TestAccount, amount: number) {
  const id = (await payout(app, shop, { amount, order: `ret-${amount}` })).json()
    .identifier_payout as string;
  await drainDueWork(app.ctx);
  const transfer = [...s.transfers.values()].find(
    (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === id,
  )!;
  expect(transfer).toBeDefined();
  return { id, transfer };
}

async function reconcile(app: TestApp, shop: TestAccount) {
  const out = await dispatch(['fintoc', 'reconcile', '--account', shop.id, '--json'], app.ctx);
  const parsed = JSON.parse(out.stdout) as {
    matched: number;
    findings: { kind: string; subject: string; amountMinor: string; detail: string }[];
  };
  return { exitCode: out.exitCode, ...parsed };
}

async function transferState(app: TestApp, payoutId: string) {
  return (
    await app.ctx.db
      .selectFrom('fintoc_transfers')
      .select('state')
      .where('payout_id', '=', payoutId)
      .executeTakeFirstOrThrow()
  ).state;
}

describe('cobro fintoc reconcile and a returned transfer', () => {
  it('matches the payment and its return, equal and opposite, and reports nothing', async () => {
    const { t, sim, shop } = await started();
    const { id, transfer } = await sent(t, sim, shop, 7000);
    expect(
      await fintocWebhook(t, sim, shop, 'transfer.outbound.succeeded', {
        ...transfer,
        status: 'succeeded',
      }),
    ).toBe('applied');
    transfer.status = 'returned';
    const returned = { ...transfer, return_reason: 'cuenta cerrada' };
    expect(await fintocWebhook(t, sim, shop, 'transfer.outbound.returned', returned)).toBe(
      'applied',
    );
    expect(await balance(t, shop)).toBe(100_000);

    const now = await reconcile(t, shop);
    expect(now.findings).toEqual([]);
    expect(now).toMatchObject({ exitCode: 0, matched: 2 });
    expect(await transferState(t, id)).toBe('returned');
    // Past the window nothing is missing either: both movements are there.
    t.clock.advanceMs(fintocLimits.movementWindowMs + 60_000);
    expect(await reconcile(t, shop)).toMatchObject({ exitCode: 0, matched: 2, findings: [] });

    // Redelivered, the return changes nothing more, the row included.
    expect(await fintocWebhook(t, sim, shop, 'transfer.outbound.returned', returned)).toBe(
      'already_final',
    );
    expect(await transferState(t, id)).toBe('returned');
  });

  it('a return whose success was never heard: the row is returned and both movements match', async () => {
    const { t, sim, shop } = await started();
    const { id, transfer } = await sent(t, sim, shop, 5000);
    transfer.status = 'returned';
    expect(await fintocWebhook(t, sim, shop, 'transfer.outbound.returned', { ...transfer })).toBe(
      'applied',
    );
    expect(await transferState(t, id)).toBe('returned');
    expect(await balance(t, shop)).toBe(100_000);
    expect(await reconcile(t, shop)).toMatchObject({ exitCode: 0, matched: 2, findings: [] });
  });

  it('reports only what differs: a return of another amount, then the return it lacks', async () => {
    const { t, sim, shop } = await started();
    const { id, transfer } = await sent(t, sim, shop, 7000);
    // Fintoc's account shows the payment and an inbound return of 6500 naming the transfer.
    expect(
      await fintocWebhook(t, sim, shop, 'transfer.outbound.returned', {
        ...transfer,
        status: 'returned',
      }),
    ).toBe('applied');
    sim.extraMovements.push({
      id: 'mov_short_return',
      object: 'movement',
      amount: 6500,
      currency: 'CLP',
      direction: 'inbound',
      resource_id: transfer.id,
      return_pair_id: `mov_${String(transfer.id)}`,
      type: 'transfer_return',
    });
    const first = await reconcile(t, shop);
    expect(first.matched).toBe(1);
    expect(first.findings).toEqual([
      expect.objectContaining({
        kind: 'unmatched_movement',
        subject: 'mov_short_return',
        amountMinor: '6500',
        detail: `amount differs from payout return ${id}`,
      }),
    ]);
    t.clock.advanceMs(fintocLimits.movementWindowMs + 60_000);
    const later = await reconcile(t, shop);
    expect(later.findings.map((f) => [f.kind, f.subject, f.amountMinor, f.detail])).toEqual([
      ['unmatched_movement', 'mov_short_return', '6500', `amount differs from payout return ${id}`],
      ['missing_movement', id, '7000', 'payout return with no Fintoc movement'],
    ]);
  });

  it('a second return of one transfer is money that came back twice: reported', async () => {
    const { t, sim, shop } = await started();
    const { id, transfer } = await sent(t, sim, shop, 4000);
    transfer.status = 'returned';
    expect(await fintocWebhook(t, sim, shop, 'transfer.outbound.returned', { ...transfer })).toBe(
      'applied',
    );
    sim.extraMovements.push({
      id: 'mov_second_return',
      object: 'movement',
      amount: 4000,
      currency: 'CLP',
      direction: 'inbound',
      resource_id: transfer.id,
      return_pair_id: null,
      type: 'transfer_return',
    });
    const out = await reconcile(t, shop);
    expect(out.matched).toBe(2);
    expect(out.findings.map((f) => [f.kind, f.subject, f.detail])).toEqual([
      ['unmatched_movement', 'mov_second_return', `a second movement of payout return ${id}`],
    ]);
  });

  it('a return naming only its pair (return_pair_id) matches through the payment it reverses', async () => {
    const { t, sim, shop } = await started();
    const { transfer } = await sent(t, sim, shop, 3000);
    expect(
      await fintocWebhook(t, sim, shop, 'transfer.outbound.returned', {
        ...transfer,
        status: 'returned',
      }),
    ).toBe('applied');
    sim.extraMovements.push({
      id: 'mov_pair_only',
      object: 'movement',
      amount: 3000,
      currency: 'CLP',
      direction: 'inbound',
      resource_id: null,
      return_pair_id: `mov_${String(transfer.id)}`,
      type: 'transfer_return',
    });
    expect(await reconcile(t, shop)).toMatchObject({ exitCode: 0, matched: 2, findings: [] });
  });

  it('a return that comes back after the payment left the lookback still matches', async () => {
    const { t, sim, shop } = await started();
    const { transfer } = await sent(t, sim, shop, 2500);
    expect(
      await fintocWebhook(t, sim, shop, 'transfer.outbound.succeeded', {
        ...transfer,
        status: 'succeeded',
      }),
    ).toBe('applied');
    t.clock.advanceMs(fintocLimits.reconcileLookbackMs + 86_400_000);
    // Fintoc lists the movements since the lookback: the payment is older, only its return is read.
    sim.transfers.delete(String(transfer.id));
    sim.extraMovements.push({
      id: 'mov_late_return',
      object: 'movement',
      amount: 2500,
      currency: 'CLP',
      direction: 'inbound',
      resource_id: transfer.id,
      return_pair_id: `mov_${String(transfer.id)}`,
      type: 'transfer_return',
    });
    expect(
      await fintocWebhook(t, sim, shop, 'transfer.outbound.returned', {
        ...transfer,
        status: 'returned',
      }),
    ).toBe('applied');
    expect(await reconcile(t, shop)).toMatchObject({ exitCode: 0, matched: 1, findings: [] });
  });

  it('a return with neither movement at Fintoc is one missing finding that says both', async () => {
    const { t, sim, shop } = await started();
    const { id, transfer } = await sent(t, sim, shop, 1500);
    expect(
      await fintocWebhook(t, sim, shop, 'transfer.outbound.returned', {
        ...transfer,
        status: 'returned',
      }),
    ).toBe('applied');
    sim.transfers.delete(String(transfer.id));
    t.clock.advanceMs(fintocLimits.movementWindowMs + 60_000);
    const out = await reconcile(t, shop);
    expect(out.findings.map((f) => [f.kind, f.subject, f.amountMinor, f.detail])).toEqual([
      ['missing_movement', id, '-1500', 'payout with no Fintoc movement, nor its return'],
    ]);
  });

  it('migration 0725 marks the transfers decision 830 returned and left succeeded, and only those', async () => {
    const { t, sim, shop } = await started();
    const paid = await sent(t, sim, shop, 2000);
    const back = await sent(t, sim, shop, 3000);
    for (const { transfer } of [paid, back])
      expect(
        await fintocWebhook(t, sim, shop, 'transfer.outbound.succeeded', {
          ...transfer,
          status: 'succeeded',
        }),
      ).toBe('applied');
    expect(
      await fintocWebhook(t, sim, shop, 'transfer.outbound.returned', {
        ...back.transfer,
        status: 'returned',
      }),
    ).toBe('applied');
    await unwiden(t.ctx.db);
    expect([await transferState(t, paid.id), await transferState(t, back.id)]).toEqual([
      'succeeded',
      'succeeded',
    ]);
    await widen(t.ctx.db);
    expect([await transferState(t, paid.id), await transferState(t, back.id)]).toEqual([
      'succeeded',
      'returned',
    ]);
  });
});

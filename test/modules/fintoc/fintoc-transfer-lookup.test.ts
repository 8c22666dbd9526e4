// Decision 992: a transfer result whose amount or currency is not the payout's moves nothing and is reported by
// `cobro fintoc reconcile`; a transfer Fintoc answered `pending` whose webhook never comes is looked up (Fintoc's
// "Retrieve a Transfer", GET /v2/transfers/{id}) once it has waited fintocLimits.transferPendingRecheckMs, the
// lookup applying the result through the webhook's own path, so the two racing move the payout once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop, fintocWebhook } from '../../support/fintoc-shop.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { fintocLimits } from '../../../src/limits/index.ts';
import { balance, expectMovementChain, payout } from '../wallet/wallet-helpers.ts';

type Obj = Record<string, unknown>;
let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Consultas', 'cd', {
    payouts: { fundMinor: 200_000 },
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const webhook = (type: string, data: Obj) => fintocWebhook(t, sim, shop, type, data);

/** A payout sent as a Fintoc transfer, answered `pending`: the transfer the simulator holds. */
async function pendingTransfer(order: string, amount: number) {
  const id = (await payout(t, shop, { amount, order })).json().identifier_payout as string;
  await drainDueWork(t.ctx, shop.id);
  const sent = [...sim.transfers.values()].find((x) => (x.metadata as Obj).cobro_payout_id === id);
  expect(sent).toMatchObject({ status: 'pending' });
  return { id, sent: sent! };
}

async function rowOf(id: string) {
  const p = await t.ctx.db
    .selectFrom('payouts')
    .select(['status', 'reason_rejection'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const f = await t.ctx.db
    .selectFrom('fintoc_transfers')
    .select('state')
    .where('payout_id', '=', id)
    .executeTakeFirstOrThrow();
  return { status: p.status, reason: p.reason_rejection, transfer: f.state };
}

const reconcile = () => dispatch(['fintoc', 'reconcile', '--account', shop.id], t.ctx);
const gets = (transferId: unknown) =>
  sim.calls.filter((c) => c === `GET /v2/transfers/${String(transferId)}`).length;

describe('Fintoc transfer results for another amount or currency', () => {
  it('a succeeded event for another amount does not pay the payout, and reconcile reports it', async () => {
    const held = await balance(t, shop);
    const { id, sent } = await pendingTransfer('tl-amount', 5000);
    expect(await balance(t, shop)).toBe(held - 5000);
    const res = await webhook('transfer.outbound.succeeded', {
      ...sent,
      status: 'succeeded',
      amount: 4999,
    });
    expect(res).toBe('amount_mismatch');
    expect(await rowOf(id)).toMatchObject({ status: 'processing', transfer: 'sent' });
    const out = await reconcile();
    expect(out.stdout).toContain(`transfer_mismatch ${id} -5000 CLP`);
    expect(out.stdout).toContain('4999 CLP');
    // The payout's own result, for its amount, still applies.
    expect(await webhook('transfer.outbound.succeeded', { ...sent, status: 'succeeded' })).toBe(
      'applied',
    );
    expect((await rowOf(id)).status).toBe('success');
    expect(await balance(t, shop)).toBe(held - 5000);
  });

  it('a failed event in another currency does not give the money back', async () => {
    const held = await balance(t, shop);
    const { id, sent } = await pendingTransfer('tl-currency', 3000);
    const res = await webhook('transfer.outbound.failed', {
      ...sent,
      status: 'failed',
      currency: 'USD',
    });
    expect(res).toBe('amount_mismatch');
    expect(await rowOf(id)).toMatchObject({ status: 'processing', transfer: 'sent' });
    expect(await balance(t, shop)).toBe(held - 3000);
    expect((await reconcile()).stdout).toContain(`transfer_mismatch ${id} -3000 CLP`);
  });

  it('a returned event of another amount does not reverse a paid payout', async () => {
    const held = await balance(t, shop);
    const { id, sent } = await pendingTransfer('tl-returned', 4000);
    expect(await webhook('transfer.outbound.succeeded', { ...sent, status: 'succeeded' })).toBe(
      'applied',
    );
    const res = await webhook('transfer.outbound.returned', {
      ...sent,
      status: 'returned',
      amount: '40000',
    });
    expect(res).toBe('amount_mismatch');
    expect(await rowOf(id)).toMatchObject({ status: 'success', transfer: 'succeeded' });
    expect(await balance(t, shop)).toBe(held - 4000);
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });
});

describe('a Fintoc transfer answered pending whose webhook is lost', () => {
  it('is looked up once it has waited, and its result applied', async () => {
    const { id, sent } = await pendingTransfer('tl-lost', 2500);
    sent.status = 'succeeded';
    // Not asked before it has waited: Fintoc's webhook is the usual word.
    await drainDueWork(t.ctx, shop.id);
    expect(gets(sent.id)).toBe(0);
    t.clock.advanceMs(fintocLimits.transferPendingRecheckMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    expect(gets(sent.id)).toBe(1);
    expect(await rowOf(id)).toMatchObject({ status: 'success', transfer: 'succeeded' });
    // Decided: never asked again, and the webhook arriving late changes nothing.
    t.clock.advanceMs(fintocLimits.transferPendingRecheckMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    expect(gets(sent.id)).toBe(1);
    expect(await webhook('transfer.outbound.succeeded', { ...sent })).toBe('already_final');
  });

  it('still pending, it is asked again after the interval, then left unresolved past the bound', async () => {
    const held = await balance(t, shop);
    const { id, sent } = await pendingTransfer('tl-pending', 1500);
    t.clock.advanceMs(fintocLimits.transferPendingRecheckMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    expect(gets(sent.id)).toBe(1);
    await drainDueWork(t.ctx, shop.id);
    expect(gets(sent.id)).toBe(1);
    t.clock.advanceMs(fintocLimits.transferPendingRecheckMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    expect(gets(sent.id)).toBe(2);
    expect(await rowOf(id)).toMatchObject({ status: 'processing', transfer: 'sent' });
    // Past the bound it is the operator's: unresolved, its money held, reported, and no longer asked about.
    t.clock.advanceMs(fintocLimits.transferPendingAskMsMax);
    await drainDueWork(t.ctx, shop.id);
    expect(await rowOf(id)).toMatchObject({ status: 'processing', transfer: 'unresolved' });
    const asked = gets(sent.id);
    t.clock.advanceMs(fintocLimits.transferPendingRecheckMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    expect(gets(sent.id)).toBe(asked);
    expect(await balance(t, shop)).toBe(held - 1500);
    expect((await reconcile()).stdout).toContain(`unresolved_transfer ${id} -1500 CLP`);
    // Fintoc's word, when it comes, still ends it.
    expect(await webhook('transfer.outbound.failed', { ...sent, status: 'failed' })).toBe(
      'applied',
    );
    expect(await balance(t, shop)).toBe(held);
  });

  it('a lookup showing another amount moves nothing and is reported', async () => {
    const { id, sent } = await pendingTransfer('tl-lookup-amount', 1800);
    sent.status = 'failed';
    sent.amount = 1;
    t.clock.advanceMs(fintocLimits.transferPendingRecheckMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    expect(gets(sent.id)).toBe(1);
    expect(await rowOf(id)).toMatchObject({ status: 'processing', transfer: 'sent' });
    expect((await reconcile()).stdout).toContain(`transfer_mismatch ${id} -1800 CLP`);
  });

  it('a webhook applied while the lookup is in flight: the lookup moves nothing more', async () => {
    const held = await balance(t, shop);
    const { id, sent } = await pendingTransfer('tl-gate', 2100);
    sent.status = 'failed';
    let release!: () => void;
    sim.transferReadGates.set(String(sent.id), new Promise<void>((r) => (release = r)));
    t.clock.advanceMs(fintocLimits.transferPendingRecheckMs + 1000);
    const drained = drainDueWork(t.ctx, shop.id);
    while (gets(sent.id) === 0) await new Promise((r) => setTimeout(r, 5));
    expect(await webhook('transfer.outbound.failed', { ...sent })).toBe('applied');
    release();
    await drained;
    sim.transferReadGates.delete(String(sent.id));
    expect(await rowOf(id)).toMatchObject({ status: 'banking_error', transfer: 'failed' });
    expect(await balance(t, shop)).toBe(held);
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });

  it('a failing read is asked again later', async () => {
    const { id, sent } = await pendingTransfer('tl-read-fails', 1300);
    sent.status = 'succeeded';
    sim.transferListFault = 'fail';
    t.clock.advanceMs(fintocLimits.transferPendingRecheckMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    sim.transferListFault = null;
    expect(gets(sent.id)).toBe(1);
    expect(await rowOf(id)).toMatchObject({ status: 'processing', transfer: 'sent' });
    t.clock.advanceMs(fintocLimits.transferPendingRecheckMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    expect(await rowOf(id)).toMatchObject({ status: 'success', transfer: 'succeeded' });
  });

  it('the lookup and the webhook at once give the money back once', async () => {
    const held = await balance(t, shop);
    const made = await Promise.all(
      ['tl-race-1', 'tl-race-2', 'tl-race-3'].map((o, i) => pendingTransfer(o, 1000 + i)),
    );
    for (const m of made) m.sent.status = 'failed';
    t.clock.advanceMs(fintocLimits.transferPendingRecheckMs + 1000);
    const answers = await Promise.all([
      drainDueWork(t.ctx, shop.id),
      ...made.flatMap((m) => [
        webhook('transfer.outbound.failed', { ...m.sent }),
        webhook('transfer.outbound.failed', { ...m.sent }),
      ]),
    ]);
    expect(answers.filter((a) => a === 'applied').length).toBeLessThanOrEqual(3);
    for (const m of made) {
      expect(await rowOf(m.id)).toMatchObject({ status: 'banking_error', transfer: 'failed' });
      const incomes = await t.ctx.db
        .selectFrom('wallet_movements')
        .select('id')
        .where('reference', '=', m.id)
        .where('income_expense', '=', 'income')
        .execute();
      expect(incomes).toHaveLength(1);
    }
    expect(await balance(t, shop)).toBe(held);
    expect(await expectMovementChain(t, shop.id)).toBe(held);
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });
});

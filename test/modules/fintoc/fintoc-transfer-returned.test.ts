// Decision 830: in Chile a Fintoc transfer that succeeded can still be reversed by the receiving bank (a CCA
// rejection): Fintoc moves it to `returned` and puts the money back in the Fintoc account. The payout was `success`
// and its money had left the wallet for bank clearing; the return must give it back to the wallet once (the payout
// becomes `banking_error` with Fintoc's reason, an income movement, one more callback), and a redelivered return, or
// a late `succeeded` or `failed`, must change nothing more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop, fintocWebhook } from '../../support/fintoc-shop.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { balance, expectMovementChain, notificationsOf, payout } from '../wallet/wallet-helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Devuelta', 'cd', {
    payouts: { fundMinor: 100_000 },
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const webhook = (type: string, data: Record<string, unknown>) =>
  fintocWebhook(t, sim, shop, type, data);

async function sentTransfer(order: string, amount: number) {
  const created = (await payout(t, shop, { amount, order })).json();
  expect(created.status).toBe('success');
  await drainDueWork(t.ctx);
  const id = created.identifier_payout as string;
  const sent = [...sim.transfers.values()].find(
    (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === id,
  );
  expect(sent).toBeDefined();
  return { id, sent: sent! };
}

async function statusOf(id: string) {
  return t.ctx.db
    .selectFrom('payouts')
    .select(['status', 'reason_rejection'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

describe('a Fintoc transfer returned after it succeeded', () => {
  it('gives the money back to the wallet once, with a banking_error callback', async () => {
    const { id, sent } = await sentTransfer('ret-1', 7000);
    expect(await webhook('transfer.outbound.succeeded', { ...sent, status: 'succeeded' })).toBe(
      'applied',
    );
    expect((await statusOf(id)).status).toBe('success');
    expect(await balance(t, shop)).toBe(93_000);

    const returned = { ...sent, status: 'returned', return_reason: 'cuenta cerrada' };
    expect(await webhook('transfer.outbound.returned', returned)).toBe('applied');
    expect(await statusOf(id)).toEqual({
      status: 'banking_error',
      reason_rejection: 'Fintoc: transfer returned, cuenta cerrada',
    });
    expect(await balance(t, shop)).toBe(100_000);

    // Delivered again (a new event id), and late results: nothing more moves.
    expect(await webhook('transfer.outbound.returned', returned)).toBe('already_final');
    expect(await webhook('transfer.outbound.succeeded', { ...sent, status: 'succeeded' })).toBe(
      'already_final',
    );
    expect(await webhook('transfer.outbound.failed', { ...sent, status: 'failed' })).toBe(
      'already_final',
    );
    expect(await balance(t, shop)).toBe(100_000);
    expect(await expectMovementChain(t, shop.id)).toBe(100_000);
    const notes = (await notificationsOf(t, shop.id)).filter(
      (n) => (n.payload as { id: string }).id === id,
    );
    expect(notes.map((n) => (n.payload as { status: string }).status)).toEqual([
      'success',
      'banking_error',
    ]);
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });

  it('a late failure after success still changes nothing, and a paid payout stays final for the operator', async () => {
    const before = await balance(t, shop);
    const { id, sent } = await sentTransfer('ret-2', 4000);
    expect(await webhook('transfer.outbound.succeeded', { ...sent, status: 'succeeded' })).toBe(
      'applied',
    );
    expect(await webhook('transfer.outbound.failed', { ...sent, status: 'failed' })).toBe(
      'already_final',
    );
    const byHand = await dispatch(['payouts', 'resolve', id, '--status', 'banking_error'], t.ctx);
    expect(byHand.exitCode).not.toBe(0);
    expect((await statusOf(id)).status).toBe('success');
    expect(await balance(t, shop)).toBe(before - 4000);
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });

  it('returns delivered at once, under new event ids and the same one, credit the wallet once', async () => {
    const before = await balance(t, shop);
    const { id, sent } = await sentTransfer('ret-3', 6000);
    expect(await webhook('transfer.outbound.succeeded', { ...sent, status: 'succeeded' })).toBe(
      'applied',
    );
    const returned = { ...sent, status: 'returned', return_reason: 'rut no coincide' };
    const same = sim.signedEvent('transfer.outbound.returned', returned);
    const sameTwice = () =>
      t.app.inject({
        method: 'POST',
        url: `/webhooks/fintoc/${shop.id}`,
        headers: { 'content-type': 'application/json', 'fintoc-signature': same.signature },
        payload: same.body,
      });
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => webhook('transfer.outbound.returned', returned)),
      sameTwice().then((r) => r.json().result as string),
      sameTwice().then((r) => r.json().result as string),
    ]);
    expect(answers.filter((a) => a === 'applied')).toHaveLength(1);
    expect((await statusOf(id)).status).toBe('banking_error');
    expect(await balance(t, shop)).toBe(before);
    const reversals = await t.ctx.db
      .selectFrom('wallet_movements')
      .select('id')
      .where('reference', '=', id)
      .where('income_expense', '=', 'income')
      .execute();
    expect(reversals).toHaveLength(1);
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });
});

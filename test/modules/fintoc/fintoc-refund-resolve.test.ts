// Decision 820: `cobro refunds resolve ID --outcome succeeded|failed` ends by hand a Fintoc refund left unresolved
// (decision 785: its answer lost and not found or sent again within the limits; it stays `complete`, its money held
// in refund clearing, no longer asked about). `succeeded` records it as Fintoc's `refund.succeeded` webhook would,
// `failed` gives the money back as `refund.failed` does (the same path, refund-answer.ts), each with its audit row
// and the refund's callback; anything that is not unresolved is refused and nothing moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import {
  startFintocShop,
  fintocWebhook,
  paidFintocSale,
  refundRowOf,
} from '../../support/fintoc-shop.ts';
import { runOnContext } from '../../support/cli-in-process.ts';
import { dashboardBrowser } from '../../support/dashboard.ts';
import { fintocLimits, refundLimits } from '../../../src/limits/index.ts';
import { ledgerCodes, SYSTEM_OWNER } from '../../../src/platform/ledger/ledger.ts';
import { runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  // Its Fintoc account (for payouts) lets `cobro fintoc reconcile` run on it (decision 850's test).
  ({ t, sim, shop } = await startFintocShop('Tienda Resolución', 'a7', {
    refundCallbackUrl: 'https://shop.example.com/refunds',
    payouts: { fundMinor: 1 },
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const paidSale = (order: string, amount: number) => paidFintocSale(t, sim, shop, order, amount);
const refundRow = (saleId: string) => refundRowOf(t, saleId);

const cobro = (...argv: string[]) => runOnContext(argv, t.ctx);

/** A refund whose create never reached Fintoc, its answer lost: `complete`, its dispatch still due. */
async function refundLost(saleId: string, amount: number) {
  sim.refundFault = 'drop';
  const res = await t.call(shop, {
    method: 'POST',
    url: '/api/nullification',
    sign: true,
    body: { id: saleId, amount, subject: 'devolución' },
  });
  sim.refundFault = null;
  expect(res.statusCode, res.body).toBe(200);
  const row = await refundRow(saleId);
  expect([row.status, row.dispatch_attempts, row.refund_code]).toEqual(['complete', 1, null]);
  return row;
}

/** The same, then past fintocLimits.refundResendWindowMs: unresolved (decision 785), never sent again. */
async function unresolvedRefund(order: string, amount: number) {
  const saleId = await paidSale(order, amount);
  const row = await refundLost(saleId, amount);
  t.clock.advanceMs(fintocLimits.refundResendWindowMs + refundLimits.dispatchLeaseMs + 1000);
  await runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
  const after = await refundRow(saleId);
  expect([after.status, after.dispatch_due_at]).toEqual(['complete', null]);
  return { saleId, id: row.id };
}

/** What the refund's money touches: the sale, the merchant's pending settlement and wallet, refund clearing. */
async function money(saleId: string) {
  const sale = await t.ctx.db
    .selectFrom('transactions')
    .select(['status', 'refunded_minor', 'refunded_pending_minor'])
    .where('id', '=', saleId)
    .executeTakeFirstOrThrow();
  const of = (owner: string, code: string) =>
    t.ctx.ledger.balance(t.ctx.db, { owner, code, currency: 'CLP' });
  return {
    sale: sale.status,
    refunded: Number(sale.refunded_minor),
    refundedPending: Number(sale.refunded_pending_minor),
    pending: await of(shop.id, ledgerCodes.pendingSettlement),
    wallet: await of(shop.id, ledgerCodes.walletAvailable),
    clearing: await of(SYSTEM_OWNER, ledgerCodes.refundClearing),
  };
}

async function calledBack(id: string): Promise<string[]> {
  const rows = await t.ctx.db
    .selectFrom('notifications')
    .select('payload')
    .where('account_id', '=', shop.id)
    .where('event_type', '=', 'nullification.result')
    .orderBy('created_at')
    .execute();
  return rows
    .map((r) => r.payload as Record<string, unknown>)
    .filter((p) => p.id_nullification === id)
    .map((p) => String(p.status));
}

async function audited(id: string) {
  return t.ctx.db
    .selectFrom('audit_log')
    .select(['chain', 'actor'])
    .where('action', '=', 'cobro refunds resolve')
    .where('target', '=', id)
    .execute();
}

async function ledgerClean(): Promise<void> {
  const verify = await cobro('ledger', 'verify');
  expect(verify.code, verify.stderr + verify.stdout).toBe(0);
}

function creates(): number {
  return sim.calls.filter((c) => c === 'POST /v1/refunds').length;
}

describe('cobro refunds resolve', () => {
  it('--outcome succeeded finishes an unresolved refund as the webhook would, once', async () => {
    const { saleId, id } = await unresolvedRefund('rs-1', 8000);
    const before = await money(saleId);
    const sent = creates();
    const run = await cobro('refunds', 'resolve', id, '--outcome', 'succeeded');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`refund ${id} is reverse_completed\n`);
    const row = await refundRow(saleId);
    expect([row.status, row.dispatch_due_at, row.refund_code]).toEqual([
      'reverse_completed',
      null,
      `operator:${id}`,
    ]);
    // The payer got it back at Fintoc: nothing of the merchant's moves, nothing is sent to Fintoc.
    expect(await money(saleId)).toEqual(before);
    expect(creates()).toBe(sent);
    expect(await calledBack(id)).toEqual(['complete', 'reverse_completed']);
    expect(await audited(id)).toEqual([{ chain: shop.id, actor: 'operator' }]);
    await ledgerClean();

    // A second run is refused and changes nothing.
    const again = await cobro('refunds', 'resolve', id, '--outcome', 'failed');
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`refund ${id} is reverse_completed, not unresolved\n`);
    expect(await money(saleId)).toEqual(before);
    expect(await calledBack(id)).toEqual(['complete', 'reverse_completed']);
    expect(await audited(id)).toHaveLength(1);
  });

  it('--outcome failed gives the money back as a refusal does, once', async () => {
    const saleId = await paidSale('rs-2', 6000);
    const unrefunded = await money(saleId);
    const { id } = await unresolvedRefund('rs-2b', 1); // another sale, so both are in the same books
    const row = await refundLost(saleId, 6000);
    t.clock.advanceMs(fintocLimits.refundResendWindowMs + refundLimits.dispatchLeaseMs + 1000);
    await runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
    expect((await refundRow(saleId)).dispatch_due_at).toBeNull();
    const held = await money(saleId);
    expect(held.refunded).toBe(6000);
    expect(held.clearing - unrefunded.clearing).toBe(6000n + 1n);

    const run = await cobro('refunds', 'resolve', row.id, '--outcome', 'failed', '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ id: row.id, status: 'reverse_deleted' });
    const after = await refundRow(saleId);
    expect([after.status, after.dispatch_due_at]).toEqual(['reverse_deleted', null]);
    expect(after.gateway_message).toBe('refund failed at the processor (cobro refunds resolve)');
    // The sale's money is where it was before the refund: back once, out of refund clearing.
    const back = await money(saleId);
    expect(back).toEqual({ ...unrefunded, clearing: unrefunded.clearing + 1n });
    expect(await calledBack(row.id)).toEqual(['complete', 'reverse_deleted']);
    expect(await audited(row.id)).toEqual([{ chain: shop.id, actor: 'operator' }]);
    await ledgerClean();

    const again = await cobro('refunds', 'resolve', row.id, '--outcome', 'failed');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is reverse_deleted, not unresolved');
    expect(await money(saleId)).toEqual(back);
    expect(await calledBack(row.id)).toEqual(['complete', 'reverse_deleted']);
    expect(await audited(row.id)).toHaveLength(1);
    // The other one is still the operator's.
    expect((await cobro('refunds', 'resolve', id, '--outcome', 'succeeded')).code).toBe(0);
    await ledgerClean();
  });

  it("ends one answered in_progress and no longer asked, keeping Fintoc's id; a late webhook changes nothing", async () => {
    const saleId = await paidSale('rs-5', 7000);
    sim.refundStatus = 'in_progress';
    const res = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id: saleId, amount: 7000, subject: 'devolución' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const row = await refundRow(saleId);
    expect(row.refund_code).not.toBeNull();
    // Past refundLimits.inProgressAskMsMax: asked once more, still in progress, then no longer asked (decision 745).
    t.clock.advanceMs(refundLimits.inProgressAskMsMax + refundLimits.dispatchLeaseMs);
    await runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
    sim.refundStatus = 'succeeded';
    expect(await refundRow(saleId)).toMatchObject({ status: 'complete', dispatch_due_at: null });
    const before = await money(saleId);

    const run = await cobro('refunds', 'resolve', row.id, '--outcome', 'succeeded');
    expect(run.code, run.stderr).toBe(0);
    const after = await refundRow(saleId);
    expect([after.status, after.refund_code]).toEqual(['reverse_completed', row.refund_code]);
    expect(await money(saleId)).toEqual(before);

    // Fintoc's own word arriving later is the webhook's usual late answer: nothing moves.
    const fintocRefund = sim.refunds.get(row.refund_code!)!;
    const failed = { ...fintocRefund, status: 'failed' };
    expect(await fintocWebhook(t, sim, shop, 'refund.failed', failed)).toBe('final');
    expect(await money(saleId)).toEqual(before);
    expect(await calledBack(row.id)).toEqual(['complete', 'reverse_completed']);
    await ledgerClean();
  });

  it('refuses a refund still asked at Fintoc: exit 1, nothing moved', async () => {
    const saleId = await paidSale('rs-3', 5000);
    const row = await refundLost(saleId, 5000);
    const before = await money(saleId);
    const run = await cobro('refunds', 'resolve', row.id, '--outcome', 'failed');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^refund ${row.id} is complete and still asked at the processor .*not unresolved\\n$`,
      ),
    );
    const after = await refundRow(saleId);
    expect([after.status, after.dispatch_due_at]).toEqual(['complete', row.dispatch_due_at]);
    expect(await money(saleId)).toEqual(before);
    expect(await calledBack(row.id)).toEqual(['complete']);
    expect(await audited(row.id)).toHaveLength(0);
  });

  it('answers a missing or unknown id, or a wrong outcome, with exit 2', async () => {
    const { saleId, id } = await unresolvedRefund('rs-4', 3000);
    const before = await money(saleId);
    const unknown = await cobro(
      'refunds',
      'resolve',
      'nul0000000000000000000',
      '--outcome',
      'failed',
    );
    // An unknown id exits 1, as in every command (decision 1155).
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      'no refund with id nul0000000000000000000\n',
    ]);
    const missing = await cobro('refunds', 'resolve', '--outcome', 'failed');
    expect(missing.code).toBe(2);
    const noOutcome = await cobro('refunds', 'resolve', id);
    expect(noOutcome.code).toBe(2);
    const wrong = await cobro('refunds', 'resolve', id, '--outcome', 'reverse_deleted');
    expect([wrong.code, wrong.stderr]).toEqual([2, '--outcome must be one of succeeded, failed\n']);
    expect((await refundRow(saleId)).status).toBe('complete');
    expect(await money(saleId)).toEqual(before);
    expect(await audited(id)).toHaveLength(0);
    const help = await cobro('refunds', 'resolve', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('cobro refunds resolve ID --outcome succeeded|failed');
  });
});

describe('the operator finds unresolved refunds (decision 850)', () => {
  it('refunds list --unresolved, refunds show and fintoc reconcile name them until resolved', async () => {
    const { saleId, id } = await unresolvedRefund('rs-find', 4100);
    // Another refund whose answer was lost but that is still asked at Fintoc: not the operator's yet.
    const asked = await refundLost(await paidSale('rs-asked', 2300), 2300);

    const listed = async () => {
      const run = await cobro('refunds', 'list', '--account', shop.id, '--unresolved', '--json');
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as { refunds: { id: string; unresolved: boolean }[] };
    };
    const before = await listed();
    expect(before.refunds.map((r) => r.id)).toContain(id);
    expect(before.refunds.map((r) => r.id)).not.toContain(asked.id);
    expect(before.refunds.every((r) => r.unresolved)).toBe(true);
    const all = JSON.parse((await cobro('refunds', 'list', '--account', shop.id, '--json')).stdout);
    expect(all.refunds.find((r: { id: string }) => r.id === asked.id).unresolved).toBe(false);

    const text = await cobro('refunds', 'list', '--account', shop.id, '--unresolved');
    expect(text.stdout).toMatch(new RegExp(`${id}  complete, unresolved +4100 CLP`));
    const shown = await cobro('refunds', 'show', id);
    expect(shown.stdout).toContain(
      `status:      complete (total), unresolved: check the processor, then cobro refunds resolve ${id} --outcome succeeded|failed`,
    );
    expect((await cobro('refunds', 'show', asked.id)).stdout).not.toContain('unresolved');

    const reconciled = await cobro('fintoc', 'reconcile', '--account', shop.id);
    expect(reconciled.code).toBe(1);
    expect(reconciled.stdout).toContain(
      `unresolved_refund ${id} -4100 CLP: refund of sale ${saleId}`,
    );
    expect(reconciled.stdout).not.toContain(`unresolved_refund ${asked.id}`);
    const kept = await t.ctx.db
      .selectFrom('fintoc_movement_findings')
      .select(['kind', 'amount_minor'])
      .where('subject', '=', id)
      .execute();
    expect(kept.map((k) => [k.kind, String(k.amount_minor)])).toEqual([
      ['unresolved_refund', '-4100'],
    ]);
    // The dashboard's payouts page names the kind (it used to call every finding but one "Movimiento faltante").
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const page = await b.get('/dashboard/payouts');
    expect(page.body).toMatch(new RegExp(`Devolución sin confirmar</td>\\s*<td[^>]*>${id}<`));

    expect((await cobro('refunds', 'resolve', id, '--outcome', 'succeeded')).code).toBe(0);
    expect((await listed()).refunds.map((r) => r.id)).not.toContain(id);
    expect((await cobro('fintoc', 'reconcile', '--account', shop.id)).stdout).not.toContain(
      `unresolved_refund ${id}`,
    );
  });
});

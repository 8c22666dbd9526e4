// Decision 905, in production with Fintoc: money coming back to the available wallet pays the merchant's chargeback
// debt first, as a settlement does (decision 560): a paid payout whose transfer the bank returned (decision 830), and
// a refund Fintoc refused that had taken its money from the wallet (decision 695). Before, the merchant who owed
// could pay that money out again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startFintocSimulator, type FintocSimulator } from '../../support/fintoc-simulator.ts';
import {
  fintocPayoutSucceeded,
  fintocShop,
  fintocWebhook,
  paidFintocSale,
  refundRowOf,
} from '../../support/fintoc-shop.ts';
import { runOnContext } from '../../support/cli-in-process.ts';
import { fintocLimits, refundLimits } from '../../../src/limits/index.ts';
import { ledgerCodes } from '../../../src/platform/ledger/ledger.ts';
import { runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { payout } from '../wallet/wallet-helpers.ts';

let t: TestApp;
let sim: FintocSimulator;

beforeAll(async () => {
  sim = await startFintocSimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'e5'.repeat(32) } });
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const cobro = (...argv: string[]) => runOnContext(argv, t.ctx);
const dayMs = 24 * 60 * 60 * 1000;

async function of(shop: TestAccount, code: string): Promise<bigint> {
  return t.ctx.ledger.balance(t.ctx.db, { owner: shop.id, code, currency: 'CLP' });
}

/** A shop with one settled Fintoc sale of `amount` in its wallet (and the 1 its payout account was funded with). */
async function shopWithSettledSale(name: string, amount: number) {
  const { shop } = await fintocShop(t, sim, name, { payouts: { fundMinor: 1 } });
  const saleId = await paidFintocSale(t, sim, shop, `${name}-sale`, amount);
  t.clock.advanceMs(30 * dayMs);
  await drainDueWork(t.ctx);
  expect(await of(shop, ledgerCodes.walletAvailable)).toBe(BigInt(amount) + 1n);
  return { shop, saleId };
}

async function openChargeback(saleId: string, amount: number, debt: number) {
  const run = await cobro(
    'disputes',
    'open',
    '--transaction',
    saleId,
    '--amount',
    String(amount),
    '--reason',
    'fraud',
    '--key',
    `CB-${saleId}-${amount}`,
  );
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(`as debt`);
  expect(run.stdout).toContain(`, ${debt} as debt)`);
}

async function expectDebtMovement(shop: TestAccount, amount: string) {
  const res = await t.call(shop, { method: 'GET', url: '/api/wallet', sign: true });
  expect(res.json().wallet_movements[0]).toMatchObject({
    subject: 'chargeback debt paid',
    income_expense: 'expense',
    amount,
  });
}

async function ledgerClean(): Promise<void> {
  const verify = await cobro('ledger', 'verify');
  expect(verify.code, verify.stderr + verify.stdout).toBe(0);
}

describe('chargeback debt collected from money Fintoc gives back', () => {
  it('pays the debt from a paid payout the bank returned', async () => {
    const { shop, saleId } = await shopWithSettledSale('Tienda Retorno', 10_000);
    const created = (await payout(t, shop, { amount: 10_001, order: 'all-out' })).json();
    expect(created.status).toBe('success');
    await drainDueWork(t.ctx);
    const sent = await fintocPayoutSucceeded(t, sim, shop, created.identifier_payout);
    await openChargeback(saleId, 4_000, 4_000);
    expect(await of(shop, ledgerCodes.disputeDebt)).toBe(-4_000n);
    const returned = { ...sent, status: 'returned', return_reason: 'cuenta cerrada' };
    expect(await fintocWebhook(t, sim, shop, 'transfer.outbound.returned', returned)).toBe(
      'applied',
    );
    expect(await of(shop, ledgerCodes.disputeDebt)).toBe(0n);
    expect(await of(shop, ledgerCodes.walletAvailable)).toBe(6_001n);
    await expectDebtMovement(shop, '4000');
    await ledgerClean();
  });

  it('pays the debt from a refused refund whose money came from the wallet', async () => {
    const { shop, saleId } = await shopWithSettledSale('Tienda Rechazo', 10_000);
    sim.refundFault = 'drop';
    const res = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id: saleId, amount: 4_000, subject: 'devolución' },
    });
    sim.refundFault = null;
    expect(res.statusCode, res.body).toBe(200);
    const row = await refundRowOf(t, saleId);
    expect(row.from_wallet_minor).toBe(4_000n);
    t.clock.advanceMs(fintocLimits.refundResendWindowMs + refundLimits.dispatchLeaseMs + 1000);
    await runRefundDispatch(t.ctx, { limit: 10, accountId: shop.id });
    // The wallet's 6,001 reserved by a payout still pending, then a chargeback of the rest of the sale: all debt.
    const reserved = (await payout(t, shop, { amount: 6_001, order: 'reserve' })).json();
    expect(reserved.status).toBe('success');
    await openChargeback(saleId, 6_000, 6_000);
    expect(await of(shop, ledgerCodes.disputeDebt)).toBe(-6_000n);
    const run = await cobro('refunds', 'resolve', row.id, '--outcome', 'failed');
    expect(run.code, run.stderr).toBe(0);
    expect(await of(shop, ledgerCodes.walletAvailable)).toBe(0n);
    expect(await of(shop, ledgerCodes.disputeDebt)).toBe(-2_000n);
    await expectDebtMovement(shop, '4000');
    await ledgerClean();
  });
});

// Decision 1015: the merchant's wallet page shows the chargeback debt it owes (the ledger's `dispute_debt`) and the
// disputes it comes from, what each added and what of it is still owed (payments go to the oldest first); a won
// dispute is not listed, and nothing is shown when the account owes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { dashboardBrowser } from '../support/dashboard.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { formatMoney } from '../../src/platform/money/money-format.ts';
import { owedDebtByDispute } from '../../src/modules/disputes/debt-owed.ts';
import { balanceOf, paidSale, setFee, settle } from '../modules/refunds/helpers.ts';
import { payout } from '../modules/wallet/wallet-helpers.ts';
import { approvedVisa, createTransaction, submit } from '../modules/transactions/helpers.ts';
import { disputeCall, expectLedgerClean, openDispute } from '../modules/disputes/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const clp = (minor: number) => formatMoney(BigInt(minor), 'CLP');

/** The debt section of the wallet page: null when the page has none. */
function debtSection(html: string): string | null {
  const match = /<section aria-labelledby="debt-title">([\s\S]*?)<\/section>/.exec(html);
  return match?.[1] ?? null;
}

/** Each listed dispute's row: its id, then the cells "opened debt" and "still owed". */
function debtRows(section: string) {
  return [...section.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((m) => m[1]!)
    .filter((row) => row.includes('data-label="Contracargo"'))
    .map((row) => ({
      id: /data-label="Contracargo" class="wrap">([^<]+)</.exec(row)?.[1],
      opened: /data-label="Deuda que abrió" class="num">([^<]+)</.exec(row)?.[1],
      owed: /data-label="Por pagar" class="num">([^<]+)</.exec(row)?.[1],
    }));
}

async function creditPayingDebt(a: TestAccount, amount: number) {
  const run = await dispatch(
    [
      'wallet',
      'credit',
      '--key',
      crypto.randomUUID(),
      '--account',
      a.id,
      '--amount',
      String(amount),
      '--reason',
      'pago',
      '--pay-debt',
    ],
    t.ctx,
  );
  expect(run.exitCode, run.stderr).toBe(0);
}

describe('dashboard: the chargeback debt on the wallet page', () => {
  it('shows the total and the disputes it comes from, read from the ledger, until it is paid', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    const sale = await paidSale(t, a, 10_000, 'sale');
    await settle(t, a);
    // All the wallet out in a payout the sandbox keeps pending: every chargeback now is debt.
    expect((await payout(t, a, { amount: 10_000, order: 'all-out' })).json().status).toBe(
      'success',
    );
    const open = async (amount: number, reason: string) =>
      (await openDispute(t, a, { transaction_id: sale, amount, reason })).dispute.id as string;
    const older = await open(3_000, 'fraude');
    await disputeCall(t, a, older, 'resolve', { outcome: 'lost' });
    const won = await open(1_000, 'no reconocido');
    const newer = await open(2_000, 'no llegó');
    await disputeCall(t, a, won, 'resolve', { outcome: 'won' });
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-5_000n);

    const b = dashboardBrowser(t);
    await b.signIn(a);
    const page = await b.get('/dashboard/wallet');
    expect(page.statusCode).toBe(200);
    const section = debtSection(page.body);
    expect(section, 'the page shows the debt').not.toBeNull();
    expect(section).toContain('Deuda por contracargos');
    expect(section).toContain(`<p class="figure">${clp(5_000)}</p>`);
    // Newest first; the won dispute gave its debt back and is not listed.
    expect(debtRows(section!)).toEqual([
      { id: newer, opened: clp(2_000), owed: clp(2_000) },
      { id: older, opened: clp(3_000), owed: clp(3_000) },
    ]);
    expect(section).not.toContain(won);
    expect(section).toContain('no llegó');
    expect(section).toContain(`/dashboard/transactions/${sale}`);

    // 4,000 paid: the oldest dispute's 3,000 and 1,000 of the newer one.
    await creditPayingDebt(a, 4_000);
    const paid = debtSection((await b.get('/dashboard/wallet')).body)!;
    expect(paid).toContain(`<p class="figure">${clp(1_000)}</p>`);
    expect(debtRows(paid)).toEqual([{ id: newer, opened: clp(2_000), owed: clp(1_000) }]);

    await creditPayingDebt(a, 1_000);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(0n);
    const none = await b.get('/dashboard/wallet');
    expect(none.statusCode).toBe(200);
    expect(debtSection(none.body)).toBeNull();
    expect(none.body).not.toContain('Deuda por contracargos');
    await expectLedgerClean(t);
  });

  it('shows nothing for an account that never owed, and a debt opened before any settlement', async () => {
    const clean = await t.createAccount();
    const b = dashboardBrowser(t);
    await b.signIn(clean);
    const page = await b.get('/dashboard/wallet');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Deuda por contracargos');

    // A chargeback on a sale still waiting for settlement: the wallet is empty, all of it is debt, no movement.
    const a = await t.createAccount();
    await setFee(t, a, '0');
    const sale = await paidSale(t, a, 8_000, 'pending-sale');
    const d = (await openDispute(t, a, { transaction_id: sale, amount: 2_500 })).dispute
      .id as string;
    const owing = dashboardBrowser(t);
    await owing.signIn(a);
    const wallet = await owing.get('/dashboard/wallet');
    const section = debtSection(wallet.body)!;
    expect(section).toContain(`<p class="figure">${clp(2_500)}</p>`);
    expect(debtRows(section)).toEqual([{ id: d, opened: clp(2_500), owed: clp(2_500) }]);
    expect(section).toContain('Espera tu respuesta');

    // Past the page's bound the older disputes are counted, not listed; the total is the ledger's all the same.
    const latest = (await openDispute(t, a, { transaction_id: sale, amount: 1_500 })).dispute
      .id as string;
    expect(await owedDebtByDispute(t.ctx.db, a.id, 1)).toEqual([
      expect.objectContaining({
        currency: 'CLP',
        owedMinor: 4_000n,
        disputesCount: 2,
        disputes: [expect.objectContaining({ id: latest, debtMinor: 1_500n, owedMinor: 1_500n })],
      }),
    ]);
  });

  it('gives a currency owed in its tab before any movement in it', async () => {
    const a = await t.createAccount();
    // A Peruvian card sale (method 25), paid and not settled.
    const created = await createTransaction(t, a, {
      amount: 12_550,
      currency: 'PEN',
      payment: 25,
      order: 'pe-1',
    });
    expect((await submit(t, created.url, 25, approvedVisa)).statusCode).toBeLessThan(400);
    const openedPen = await openDispute(t, a, { transaction_id: created.id, amount: 2_000 });
    expect(openedPen.status, JSON.stringify(openedPen)).toBe('success');
    const d = openedPen.dispute.id as string;
    const b = dashboardBrowser(t);
    await b.signIn(a);
    const clpPage = await b.get('/dashboard/wallet');
    expect(debtSection(clpPage.body), 'nothing owed in CLP').toBeNull();
    expect(clpPage.body).toContain('href="/dashboard/wallet?currency=PEN"');
    const pen = debtSection((await b.get('/dashboard/wallet?currency=PEN')).body)!;
    const pen2000 = formatMoney(2_000n, 'PEN');
    expect(pen).toContain(`<p class="figure">${pen2000}</p>`);
    expect(debtRows(pen)).toEqual([{ id: d, opened: pen2000, owed: pen2000 }]);
  });
});

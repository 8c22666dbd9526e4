// Issue 12's "done when" for the mall: a payer pays a three-store mall once in a real browser (Chromium) on the
// hosted checkout of a real server; each store's wallet, after settlement, holds its amount less its own fee to
// the peso; each store's callback and the mall's callback reach a merchant receiver through the real delivery path
// and verify with the `standardwebhooks` package under the right account's secret; the ledger stays clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './axe.ts';
import { Webhook } from 'standardwebhooks';
import { startBrowserHarness, type BrowserHarness } from '../support/browser-server.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { setFeeRule } from '../../src/modules/transactions/fees.ts';
import { runSettlements } from '../../src/modules/transactions/settlement.ts';
import { ledgerCodes } from '../../src/platform/ledger/codes.ts';
import { readBalance } from '../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';
import { deliverDueNotifications } from '../../src/platform/notifications/deliver.ts';

let h: BrowserHarness;
let receiver: Receiver;
beforeAll(async () => {
  h = await startBrowserHarness('Mall Costanera');
  receiver = await startReceiver();
}, 240_000);
afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

describe('a three-store mall in Chromium', () => {
  it('charges the sum once; each store settles its amount less its own fee; every callback verifies', async () => {
    const ctx = h.server.runtime.ctx;
    const stores = [];
    const fees = [
      { percentBp: 295, fixedMinor: 10n },
      { percentBp: 100, fixedMinor: 0n },
      { percentBp: 0, fixedMinor: 150n },
    ];
    for (const [i, name] of ['Zapatería Sur', 'Librería Norte', 'Café Central'].entries()) {
      const made = await createAccount(ctx, name);
      if (!made.ok) throw new Error(made.error);
      await setFeeRule(ctx.db, made.value.id, 1, fees[i]!, ctx.clock.now());
      stores.push(made.value);
    }
    const amounts = [30_000, 25_000, 15_000];
    const created = await h.api(
      'POST',
      '/api/mall',
      {
        email: 'pagador@example.com',
        payment: 1,
        order: 123,
        urlreturn: `${receiver.url}/return`,
        urlnotify: `${receiver.url}/mall`,
        merchant: stores.map((s, i) => [
          s.publicToken,
          String(amounts[i]),
          `item${i + 1}`,
          null,
          `45${45 + i}`,
          `${receiver.url}/store/${i}`,
        ]),
      },
      true,
    );
    expect(created.body.status).toBe('success');

    const { page, foreign } = await h.newPage([receiver.url]);
    await page.goto(created.body.url as string);
    await expect(page.getByTestId('amount').textContent()).resolves.toBe('$70.000');
    await expect(page.getByTestId('store').count()).resolves.toBe(3);
    await page.fill('#card_number', '4051 8856 0044 6623');
    await page.fill('#expiry', '12/99');
    await page.fill('#cvv', '123');
    await page.getByRole('button', { name: /Pagar \$70\.000/ }).click();
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago exitoso');
    // The mall's result stays too, with its receipt and a button back (decision 450), and axe finds nothing serious.
    await expect(page.locator('meta[http-equiv=refresh]').count()).resolves.toBe(0);
    await expect(page.getByTestId('receipt').textContent()).resolves.toContain('•••• 6623');
    await expect(page.getByRole('link', { name: 'Volver al comercio' }).count()).resolves.toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();

    const mall = await h.api('GET', `/api/mall/${created.body.id}`, undefined, true);
    expect(mall.body).toMatchObject({
      status: 'success',
      amount: '70000',
      payment: { last_4_digits: '6623' },
    });
    expect(mall.body.merchant.map((m: { name: string }) => m.name)).toEqual([
      'Zapatería Sur',
      'Librería Norte',
      'Café Central',
    ]);

    // Settlement: each store's wallet gets its own amount less its own fee, to the peso.
    await runSettlements(ctx, { limit: 100 });
    const expectedFees = [885n + 10n, 250n, 150n];
    for (const [i, s] of stores.entries()) {
      expect(
        await readBalance(ctx.db, {
          owner: s.id,
          code: ledgerCodes.walletAvailable,
          currency: 'CLP',
        }),
      ).toBe(BigInt(amounts[i]!) - expectedFees[i]!);
      expect(
        await readBalance(ctx.db, {
          owner: s.id,
          code: ledgerCodes.pendingSettlement,
          currency: 'CLP',
        }),
      ).toBe(0n);
    }

    // Callbacks through the real delivery path, each verified under its own account's secret.
    for (const accountId of [h.accountId, ...stores.map((s) => s.id)])
      await deliverDueNotifications(ctx, { accountId });
    const secretOf = async (accountId: string) =>
      (await ctx.accounts.webhookSecretsOf(accountId))!.current;
    for (const [i, s] of stores.entries()) {
      const hits = receiver.requests.filter((r) => r.path === `/store/${i}`);
      expect(hits).toHaveLength(1);
      const payload = new Webhook(await secretOf(s.id)).verify(
        hits[0]!.body,
        hits[0]!.headers as Record<string, string>,
      ) as Record<string, string>;
      expect(payload).toMatchObject({
        status: 'success',
        order: `45${45 + i}`,
        transaction_key: created.body.individual_orders[i].identificador,
      });
    }
    const mallHits = receiver.requests.filter((r) => r.path === '/mall');
    expect(mallHits).toHaveLength(1);
    const mallPayload = new Webhook(await secretOf(h.accountId)).verify(
      mallHits[0]!.body,
      mallHits[0]!.headers as Record<string, string>,
    ) as Record<string, any>;
    expect(mallPayload).toMatchObject({
      id: created.body.id,
      order: '123',
      status: 'success',
      amount: '70000',
    });
    expect(
      mallPayload.individual_orders.map((o: { status: string; amount: string }) => [
        o.status,
        o.amount,
      ]),
    ).toEqual([
      ['success', '30000'],
      ['success', '25000'],
      ['success', '15000'],
    ]);
    expect(await verifyLedger(ctx.db)).toMatchObject({ ok: true });
  }, 240_000);
});

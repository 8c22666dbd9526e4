// Issue 6's "done when": a marketplace payment paid in a real browser (Chromium) on the hosted checkout of a real
// server leaves each client's payable equal to its exact share of the net, and the ledger clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHarness, type BrowserHarness } from '../support/browser-server.ts';
import { setFeeRule } from '../../src/modules/transactions/fees.ts';
import { splitByBasisPoints } from '../../src/platform/money/split.ts';
import { ledgerCodes } from '../../src/platform/ledger/codes.ts';
import { readBalance } from '../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';

let h: BrowserHarness;
beforeAll(async () => {
  h = await startBrowserHarness('Feria Artesanal');
  // 2.95 % + $10 on Webpay cards, so the net (and its split) has remainders.
  await setFeeRule(
    h.server.runtime.ctx.db,
    h.accountId,
    1,
    { percentBp: 295, fixedMinor: 10n },
    h.server.runtime.ctx.clock.now(),
  );
});
afterAll(async () => {
  await h?.close();
});

async function newClient(name: string): Promise<string> {
  const res = await h.api('POST', '/api/maclient', {
    email: `${name.toLowerCase()}@example.com`,
    name,
    phone: '923122312',
    bank: { sbif: '0001', type: '1', num: '12312313121', rut: '11.111.111-1' },
  });
  expect(res.body.status).toBe('register');
  return res.body.id as string;
}

describe('a marketplace payment in Chromium', () => {
  it('pays with the approved card and, at settlement, owes each client exactly its share of the net', async () => {
    const clients = [
      await newClient('Alfareria'),
      await newClient('Telares'),
      await newClient('Orfebreria'),
    ];
    const percents = ['33.33', '25.5', '21.17'];
    const membership = await h.api('POST', '/api/maaffiliation', {
      name: 'feria',
      percentage: '20',
      affiliation: clients.map((id, i) => [id, percents[i]]),
    });
    expect(membership.body.status).toBe('register');
    const created = await h.api('POST', '/api/transaction', {
      email: 'pagador@example.com',
      order: 'feria-1',
      subject: 'Canasto de mimbre',
      amount: 48_731,
      marketplace: membership.body.token,
    });
    expect(created.body.status).toBe('pending');

    const { page, foreign } = await h.newPage();
    await page.goto(created.body.url as string);
    await expect(page.getByTestId('amount').textContent()).resolves.toBe('$48.731');
    await page.getByRole('link', { name: /^Webpay\s*Visa/ }).click();
    await page.fill('#card_number', '4051 8856 0044 6623');
    await page.fill('#expiry', '12/99');
    await page.fill('#cvv', '123');
    await page.getByRole('button', { name: /Pagar \$48\.731/ }).click();
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago exitoso');
    expect(foreign).toEqual([]);
    await page.close();

    const paid = await h.api('GET', `/api/transaction/${created.body.id}`);
    expect(paid.body.status).toBe('success');
    const details = async (clientId: string) =>
      (await h.api('PUT', `/api/maclient/${clientId}`, {}, true)).body.affiliations_details[0]
        .status;
    expect(await details(clients[0]!)).toBe('pending');

    const db = h.server.runtime.ctx.db;
    const row = await db
      .selectFrom('transactions')
      .select(['amount_minor', 'fee_minor'])
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    const net = row.amount_minor - row.fee_minor!;
    // 48,731 less 2.95 % (1,438) and $10 leaves 47,283 to divide.
    expect(net).toBe(47_283n);
    const expected = splitByBasisPoints(net, [
      { id: h.accountId, bps: 2000 },
      ...clients.map((id, i) => ({ id, bps: [3333, 2550, 2117][i]! })),
    ]);

    const advanced = await h.api('POST', '/api/sandbox/clock/advance', { seconds: 1 });
    expect(advanced.body.processed['transaction-settlement']).toBe(1);
    for (const [i, clientId] of clients.entries()) {
      expect(
        await readBalance(db, {
          owner: clientId,
          code: ledgerCodes.clientPayable,
          currency: 'CLP',
        }),
      ).toBe(expected[i + 1]!.amountMinor);
      expect(await details(clientId)).toBe('liquidate');
    }
    expect(
      await readBalance(db, {
        owner: h.accountId,
        code: ledgerCodes.walletAvailable,
        currency: 'CLP',
      }),
    ).toBe(expected[0]!.amountMinor);
    expect(
      await readBalance(db, {
        owner: h.accountId,
        code: ledgerCodes.pendingSettlement,
        currency: 'CLP',
      }),
    ).toBe(0n);
    expect(expected.reduce((s, p) => s + p.amountMinor, 0n)).toBe(net);
    expect(await verifyLedger(db)).toMatchObject({ ok: true });
  });
});

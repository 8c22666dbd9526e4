// The seams the transaction flow calls for a marketplace payment, exercised directly on a real database, with
// the deposit states driven by the sandbox clock through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { postPaidPayment } from '../../support/paid-payment.ts';
import { createClient, createMembership } from './helpers.ts';
import {
  readMarketplaceShares,
  recordMarketplaceShares,
  resolveMarketplaceForPayment,
  settleMarketplaceShares,
} from '../../../src/modules/marketplace/payment.ts';
import { ledgerCodes, SYSTEM_OWNER } from '../../../src/platform/ledger/codes.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const balance = (owner: string, code: string) =>
  readBalance(t.ctx.db, { owner, code, currency: 'CLP' });
const detailStatuses = async (clientId: string) =>
  (
    await t.call(merchant, {
      method: 'PUT',
      url: `/api/maclient/${clientId}`,
      sign: true,
      body: {},
    })
  )
    .json()
    .affiliations_details.map((d: { status: string }) => d.status);

describe('marketplace payment seams', () => {
  it('resolves a live token to its split and refuses unknown or suspended ones', async () => {
    const a = await createClient(t, merchant);
    const b = await createClient(t, merchant);
    const m = await createMembership(t, merchant, '20', [
      [a, '45.5'],
      [b, '34.5'],
    ]);
    expect(await resolveMarketplaceForPayment(t.ctx.db, merchant.id, m.token)).toEqual({
      ok: true,
      membershipId: m.id,
      merchantBps: 2000,
      parts: [
        { clientId: a, bps: 4550 },
        { clientId: b, bps: 3450 },
      ],
    });
    expect(await resolveMarketplaceForPayment(t.ctx.db, merchant.id, 'f'.repeat(64))).toEqual({
      ok: false,
      reason: 'unknown',
    });
    const other = await t.createAccount('Other');
    expect(await resolveMarketplaceForPayment(t.ctx.db, other.id, m.token)).toEqual({
      ok: false,
      reason: 'unknown',
    });
    await t.call(merchant, { method: 'DELETE', url: `/api/maclient/${b}` });
    expect(await resolveMarketplaceForPayment(t.ctx.db, merchant.id, m.token)).toMatchObject({
      ok: false,
      reason: 'suspended',
      failure: { status: 'failed', type: 'marketplace_suspended' },
    });
    const c = await createClient(t, merchant);
    const m2 = await createMembership(t, merchant, '0', [[c, '100']]);
    await t.call(merchant, { method: 'DELETE', url: `/api/maaffiliation/${m2.id}` });
    expect(await resolveMarketplaceForPayment(t.ctx.db, merchant.id, m2.token)).toMatchObject({
      ok: false,
      reason: 'suspended',
      failure: { type: 'marketplace_suspended', message_error: `membership ${m2.id} is suspended` },
    });
  });

  it("splits a paid net exactly, settles the clients' parts into their payables and deposits them", async () => {
    const a = await createClient(t, merchant);
    const b = await createClient(t, merchant);
    const m = await createMembership(t, merchant, '33.33', [
      [a, '33.33'],
      [b, '33.34'],
    ]);
    const resolved = await resolveMarketplaceForPayment(t.ctx.db, merchant.id, m.token);
    if (!resolved.ok) throw new Error('membership should resolve');
    const at = t.clock.now();
    const gross = 10_000n;
    const fee = 299n;
    const recorded = await t.ctx.db.transaction().execute(async (tx) => {
      await postPaidPayment(tx, {
        accountId: merchant.id,
        transactionId: 'trx_ma_1',
        currency: 'CLP',
        grossMinor: gross,
        feeMinor: fee,
        at,
      });
      return recordMarketplaceShares(tx, {
        accountId: merchant.id,
        membershipId: resolved.membershipId,
        transactionId: 'trx_ma_1',
        currency: 'CLP',
        netMinor: gross - fee,
        at,
      });
    });
    // 9701 by 33.33 / 33.33 / 33.34 is 3233.34 / 3233.34 / 3234.31: floors 3233 + 3233 + 3234 leave one unit, which
    // goes to the largest dropped fraction, a tie between merchant and client a that the merchant (listed first) wins.
    expect(recorded.merchantMinor + recorded.parts.reduce((s, p) => s + p.amountMinor, 0n)).toBe(
      9701n,
    );
    expect(recorded).toEqual({
      transactionId: 'trx_ma_1',
      netMinor: 9701n,
      merchantMinor: 3234n,
      parts: [
        { clientId: a, amountMinor: 3233n },
        { clientId: b, amountMinor: 3234n },
      ],
    });
    const again = await t.ctx.db.transaction().execute((tx) =>
      recordMarketplaceShares(tx, {
        accountId: merchant.id,
        membershipId: resolved.membershipId,
        transactionId: 'trx_ma_1',
        currency: 'CLP',
        netMinor: 9701n,
        at,
      }),
    );
    expect(again).toEqual(recorded);
    expect(await detailStatuses(a)).toEqual(['pending']);

    const settled = await t.ctx.db.transaction().execute((tx) =>
      settleMarketplaceShares(t.ctx.ledger, tx, {
        accountId: merchant.id,
        transactionId: 'trx_ma_1',
        at,
      }),
    );
    expect(settled.journal).not.toBeNull();
    expect(await balance(a, ledgerCodes.clientPayable)).toBe(3233n);
    expect(await balance(b, ledgerCodes.clientPayable)).toBe(3234n);
    expect(await balance(merchant.id, ledgerCodes.pendingSettlement)).toBe(3234n);
    const twice = await t.ctx.db.transaction().execute((tx) =>
      settleMarketplaceShares(t.ctx.ledger, tx, {
        accountId: merchant.id,
        transactionId: 'trx_ma_1',
        at,
      }),
    );
    expect(twice.journal).toBeNull();
    expect(await balance(a, ledgerCodes.clientPayable)).toBe(3233n);
    expect(await detailStatuses(a)).toEqual(['liquidate']);

    const advance = (body: Record<string, number>) =>
      t.call(merchant, { method: 'POST', url: '/api/sandbox/clock/advance', body });
    expect((await advance({ hours: 23 })).json().processed['marketplace-client-deposits']).toBe(0);
    expect(await detailStatuses(a)).toEqual(['liquidate']);
    expect((await advance({ hours: 1 })).json().processed['marketplace-client-deposits']).toBe(2);
    expect(await detailStatuses(b)).toEqual(['pending for deposit']);
    expect(await balance(a, ledgerCodes.clientPayable)).toBe(0n);
    expect(await balance(SYSTEM_OWNER, ledgerCodes.bankClearing)).toBe(6467n);
    await advance({ days: 1 });
    expect(await detailStatuses(a)).toEqual(['paid']);
    expect(await readMarketplaceShares(t.ctx.db, 'trx_ma_1')).toEqual(recorded);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('still distributes a payment accepted before a client was suspended', async () => {
    const a = await createClient(t, merchant);
    const m = await createMembership(t, merchant, '50', [[a, '50']]);
    await t.call(merchant, { method: 'DELETE', url: `/api/maclient/${a}` });
    const at = t.clock.now();
    const shares = await t.ctx.db.transaction().execute(async (tx) => {
      await postPaidPayment(tx, {
        accountId: merchant.id,
        transactionId: 'trx_ma_2',
        currency: 'CLP',
        grossMinor: 1001n,
        feeMinor: 0n,
        at,
      });
      return recordMarketplaceShares(tx, {
        accountId: merchant.id,
        membershipId: m.id,
        transactionId: 'trx_ma_2',
        currency: 'CLP',
        netMinor: 1001n,
        at,
      });
    });
    expect(shares).toMatchObject({
      merchantMinor: 501n,
      parts: [{ clientId: a, amountMinor: 500n }],
    });
    await t.ctx.db.transaction().execute((tx) =>
      settleMarketplaceShares(t.ctx.ledger, tx, {
        accountId: merchant.id,
        transactionId: 'trx_ma_2',
        at,
      }),
    );
    expect(await balance(a, ledgerCodes.clientPayable)).toBe(500n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

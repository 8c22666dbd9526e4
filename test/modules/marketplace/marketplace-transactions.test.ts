// Marketplace payments through the real flow: transactions created with `marketplace` over HTTP, paid on the
// hosted checkout's form, settled, deposited and confirmed on the sandbox clock, with the affiliation-detail
// states of PUT /api/maclient following the money.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import {
  approvedVisa,
  createTransaction,
  rejectedMastercard,
  submit,
  submitUntilRejected,
} from '../transactions/helpers.ts';
import { createClient, createMembership } from './helpers.ts';
import { setFeeRule } from '../../../src/modules/transactions/fees.ts';
import { splitByBasisPoints } from '../../../src/platform/money/split.ts';
import { ledgerCodes, SYSTEM_OWNER } from '../../../src/platform/ledger/codes.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Mercado Central');
  await setFeeRule(t.ctx.db, merchant.id, 1, { percentBp: 295, fixedMinor: 10n }, t.clock.now());
});
afterAll(async () => {
  await t.close();
});

const post = (body: Record<string, unknown>, account = merchant) =>
  t.call(account, {
    method: 'POST',
    url: '/api/transaction',
    body: { email: 'payer@example.com', order: 'o-1', subject: 'Compra', amount: 10_000, ...body },
  });
const advance = async (body: Record<string, number>) =>
  (await t.call(merchant, { method: 'POST', url: '/api/sandbox/clock/advance', body })).json() as {
    processed: Record<string, number>;
  };
const balance = (owner: string, code: string) =>
  readBalance(t.ctx.db, { owner, code, currency: 'CLP' });
const detailStatus = async (clientId: string) =>
  (
    await t.call(merchant, {
      method: 'PUT',
      url: `/api/maclient/${clientId}`,
      sign: true,
      body: {},
    })
  ).json().affiliations_details[0].status as string;

describe('POST /api/transaction with marketplace', () => {
  it('refuses an unknown or foreign token, and a suspended membership or client', async () => {
    const a = await createClient(t, merchant);
    const m = await createMembership(t, merchant, '50', [[a, '50']]);
    expect((await post({ marketplace: 'f'.repeat(64) })).json()).toMatchObject({
      status: 'failed',
      errors: { marketplace: 'invalid' },
    });
    const other = await t.createAccount('Otro');
    const foreign = await post({ marketplace: m.token }, other);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors).toEqual({ marketplace: 'invalid' });
    expect((await post({ marketplace: 'x'.repeat(71) })).json().errors).toEqual({
      marketplace: 'too long',
    });
    expect((await post({ marketplace: m.token })).json().status).toBe('pending');

    await t.call(merchant, { method: 'DELETE', url: `/api/maclient/${a}` });
    const clientSuspended = await post({ marketplace: m.token });
    expect(clientSuspended.statusCode).toBe(200);
    expect(clientSuspended.json()).toEqual({
      status: 'failed',
      type: 'marketplace_suspended',
      message_error: `client ${a} of membership ${m.id} is suspended`,
    });
    const m2 = await createMembership(t, merchant, '10', [[await createClient(t, merchant), '90']]);
    await t.call(merchant, { method: 'DELETE', url: `/api/maaffiliation/${m2.id}` });
    expect((await post({ marketplace: m2.token })).json()).toMatchObject({
      status: 'failed',
      type: 'marketplace_suspended',
    });
    expect(
      await t.ctx.db
        .selectFrom('transactions')
        .select(['extension', 'extension_ref'])
        .where('extension', 'is not', null)
        .execute(),
    ).toEqual([{ extension: 'marketplace', extension_ref: m.id }]);
  });

  it('splits each paid net exactly and moves the detail states with settlement, deposit and confirmation', async () => {
    const a = await createClient(t, merchant);
    const b = await createClient(t, merchant);
    const m = await createMembership(t, merchant, '20', [
      [a, '45.5'],
      [b, '34.5'],
    ]);
    expect(await detailStatus(a)).toBe('not found');
    const paid: string[] = [];
    for (const amount of [10_000, 33_333]) {
      const created = await createTransaction(t, merchant, { marketplace: m.token, amount });
      await submit(t, created.url, 1, approvedVisa);
      paid.push(created.id);
    }
    // Accepted before the client was suspended: still distributed (decision 045).
    const beforeSuspension = await createTransaction(t, merchant, {
      marketplace: m.token,
      amount: 5_005,
    });
    const declined = await createTransaction(t, merchant, { marketplace: m.token, amount: 7_000 });
    await submitUntilRejected(t, declined.url, 1, rejectedMastercard);
    await t.call(merchant, { method: 'DELETE', url: `/api/maclient/${b}` });
    await submit(t, beforeSuspension.url, 1, approvedVisa);
    paid.push(beforeSuspension.id);
    expect(await detailStatus(a)).toBe('pending');

    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select(['status', 'amount_minor', 'fee_minor'])
      .where('id', 'in', paid)
      .execute();
    expect(rows.map((r) => r.status)).toEqual(['success', 'success', 'success']);
    const splits = rows.map((r) =>
      splitByBasisPoints(r.amount_minor - r.fee_minor!, [
        { id: 'm', bps: 2000 },
        { id: 'a', bps: 4550 },
        { id: 'b', bps: 3450 },
      ]),
    );
    const total = (id: string) =>
      splits.reduce((s, parts) => s + parts.find((p) => p.id === id)!.amountMinor, 0n);

    const wallet = await balance(merchant.id, ledgerCodes.walletAvailable);
    expect((await advance({ seconds: 1 })).processed['transaction-settlement']).toBe(3);
    expect(await balance(a, ledgerCodes.clientPayable)).toBe(total('a'));
    expect(await balance(b, ledgerCodes.clientPayable)).toBe(total('b'));
    expect((await balance(merchant.id, ledgerCodes.walletAvailable)) - wallet).toBe(total('m'));
    expect(await balance(merchant.id, ledgerCodes.pendingSettlement)).toBe(0n);
    expect(await detailStatus(a)).toBe('liquidate');
    expect(await detailStatus(b)).toBe('liquidate');

    const bank = await balance(SYSTEM_OWNER, ledgerCodes.bankClearing);
    expect((await advance({ days: 1 })).processed['marketplace-client-deposits']).toBe(6);
    expect(await detailStatus(a)).toBe('pending for deposit');
    expect(await balance(a, ledgerCodes.clientPayable)).toBe(0n);
    expect(await balance(b, ledgerCodes.clientPayable)).toBe(0n);
    expect((await balance(SYSTEM_OWNER, ledgerCodes.bankClearing)) - bank).toBe(
      total('a') + total('b'),
    );
    await advance({ days: 1 });
    expect(await detailStatus(a)).toBe('paid');
    expect(await detailStatus(b)).toBe('paid');
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

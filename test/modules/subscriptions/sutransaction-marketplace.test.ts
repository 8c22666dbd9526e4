// `marketplace` on POST /api/sutransaction (reference §8.4, decision 106): the charge on the stored card becomes a
// marketplace payment through the marketplace's payment extension, split to the peso at settlement; an unknown,
// foreign or suspended membership answers what POST /api/transaction answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { setFeeRule } from '../../../src/modules/transactions/fees.ts';
import { splitByBasisPoints } from '../../../src/platform/money/split.ts';
import { ledgerCodes } from '../../../src/platform/ledger/codes.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { createClient, createMembership } from '../marketplace/helpers.ts';
import { activeSubscription } from './helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Delivery Central');
  await setFeeRule(t.ctx.db, merchant.id, 1, { percentBp: 295, fixedMinor: 10n }, t.clock.now());
});
afterAll(async () => {
  await t.close();
});

const charge = (body: Record<string, unknown>, account = merchant) =>
  t.call(account, { method: 'POST', url: '/api/sutransaction/', sign: true, body });
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

describe('POST /api/sutransaction with marketplace', () => {
  it('splits each charge as a marketplace payment: shares on the membership, payables and wallet right to the peso', async () => {
    const a = await createClient(t, merchant);
    const b = await createClient(t, merchant, { email: 'b@example.com' });
    const m = await createMembership(t, merchant, '20', [
      [a, '45.5'],
      [b, '34.5'],
    ]);
    const sub = await activeSubscription(t, merchant);
    // By the membership id, as the reference's sample sends it, and by its token, as a transaction does.
    const byId = await charge({
      suscription: sub.id,
      amount: '10000',
      order: 'mk-1',
      marketplace: m.id,
    });
    const byToken = await charge({
      suscription: sub.id,
      amount: 33_333,
      order: 'mk-2',
      marketplace: m.token,
    });
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toMatchObject({ status: 'success', order: 'mk-1', amount: '10000' });
    expect(byToken.json()).toMatchObject({ status: 'success', order: 'mk-2', amount: '33333' });
    // The same order again answers the first charge; with another marketplace it is another request.
    expect(
      (
        await charge({ suscription: sub.id, amount: '10000', order: 'mk-1', marketplace: m.token })
      ).json(),
    ).toEqual(byId.json());
    expect(
      (await charge({ suscription: sub.id, amount: '10000', order: 'mk-1' })).json(),
    ).toMatchObject({ status: 'failed', type: 'duplicate_order' });

    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select(['id', 'status', 'amount_minor', 'fee_minor', 'extension', 'extension_ref'])
      .where('order', 'in', ['mk-1', 'mk-2'])
      .orderBy('order')
      .execute();
    expect(rows.map((r) => [r.status, r.extension, r.extension_ref])).toEqual([
      ['success', 'marketplace', m.id],
      ['success', 'marketplace', m.id],
    ]);
    const shares = await t.ctx.db
      .selectFrom('ma_payment_shares')
      .select(['transaction_id', 'client_id', 'status'])
      .where(
        'transaction_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    expect(shares).toHaveLength(4);
    expect(await detailStatus(a)).toBe('pending');

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
    const advanced = (
      await t.call(merchant, {
        method: 'POST',
        url: '/api/sandbox/clock/advance',
        body: { seconds: 1 },
      })
    ).json();
    expect(advanced.processed['transaction-settlement']).toBe(2);
    expect(await balance(a, ledgerCodes.clientPayable)).toBe(total('a'));
    expect(await balance(b, ledgerCodes.clientPayable)).toBe(total('b'));
    expect((await balance(merchant.id, ledgerCodes.walletAvailable)) - wallet).toBe(total('m'));
    expect(total('m') + total('a') + total('b')).toBe(
      43_333n - rows.reduce((s, r) => s + r.fee_minor!, 0n),
    );
    expect(await balance(merchant.id, ledgerCodes.pendingSettlement)).toBe(0n);
    expect(await detailStatus(a)).toBe('liquidate');
    expect(await detailStatus(b)).toBe('liquidate');
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('answers an unknown, foreign or suspended membership as a marketplace transaction does, charging nothing', async () => {
    const sub = await activeSubscription(t, merchant);
    const other = await t.createAccount('Otro');
    const foreign = await createMembership(t, other, '50', [[await createClient(t, other), '50']]);
    const asTransaction = await t.call(merchant, {
      method: 'POST',
      url: '/api/transaction',
      body: {
        email: 'p@example.com',
        order: 'tx-unknown',
        subject: 'x',
        amount: 100,
        marketplace: 'f'.repeat(64),
      },
    });
    for (const marketplace of ['f'.repeat(64), 'ma0690b6451a7043d5', foreign.id, foreign.token]) {
      const res = await charge({
        suscription: sub.id,
        amount: 100,
        order: `bad-${marketplace}`.slice(0, 40),
        marketplace,
      });
      expect(res.statusCode, marketplace).toBe(400);
      expect(res.json(), marketplace).toEqual(asTransaction.json());
    }
    expect(
      (await charge({ suscription: sub.id, amount: 100, marketplace: 'x'.repeat(71) })).json()
        .errors,
    ).toEqual({ marketplace: 'too long' });

    const client = await createClient(t, merchant, { email: 'gone@example.com' });
    const m = await createMembership(t, merchant, '10', [[client, '90']]);
    await t.call(merchant, { method: 'DELETE', url: `/api/maclient/${client}` });
    const suspended = await charge({
      suscription: sub.id,
      amount: 100,
      order: 'sus-1',
      marketplace: m.id,
    });
    expect(suspended.statusCode).toBe(200);
    expect(suspended.json()).toEqual({
      status: 'failed',
      type: 'marketplace_suspended',
      message_error: `client ${client} of membership ${m.id} is suspended`,
    });
    const charged = await t.ctx.db
      .selectFrom('su_charges')
      .select('order_ref')
      .where('subscription_id', '=', sub.id)
      .where('kind', '=', 'consumption')
      .execute();
    expect(charged).toEqual([]);
  });
});

// Issue 36: a chargeback opened, answered, won, lost and accepted over HTTP, with the ledger clean after each
// step; a dispute on a sale whose money was paid out (the debt path); what is left of a sale bounds a dispute;
// the callbacks; the refusals' codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { balanceOf, nullify, paidSale, setFee, settle, system } from '../refunds/helpers.ts';
import { payout } from '../wallet/wallet-helpers.ts';
import {
  disputeCall,
  disputeCallbacks,
  expectLedgerClean,
  openDispute,
  withNotifyUrl,
} from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('disputes', () => {
  it('holds the amount from the wallet, takes evidence, gives it back when won and sends it to the acquirer when lost', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    await withNotifyUrl(t, a);
    const sale = await paidSale(t, a, 20_000);
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(20_000n);

    const opened = await openDispute(t, a, { transaction_id: sale, amount: 5_000 });
    expect(opened.status).toBe('success');
    expect(opened.dispute).toMatchObject({
      transaction_id: sale,
      amount: 5_000,
      status: 'needs_response',
      from_wallet: 5_000,
      debt: 0,
      evidence: { text: null, urls: [] },
    });
    expect(opened.dispute.respond_by).toEqual(expect.any(String));
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(15_000n);
    expect(await balanceOf(t, a.id, 'dispute_held')).toBe(5_000n);
    await expectLedgerClean(t);

    const id = opened.dispute.id as string;
    const answered = await disputeCall(t, a, id, 'evidence', {
      text: 'The payer signed for the parcel',
      urls: ['https://shop.example.com/proof.pdf'],
    });
    expect(answered.dispute).toMatchObject({
      status: 'under_review',
      evidence: { text: 'The payer signed for the parcel' },
    });
    const shown = await t.call(a, { method: 'GET', url: `/api/disputes/${id}` });
    expect(shown.json().dispute.evidence.urls).toEqual(['https://shop.example.com/proof.pdf']);
    await expectLedgerClean(t);

    const won = await disputeCall(t, a, id, 'resolve', { outcome: 'won' });
    expect(won.dispute.status).toBe('won');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(20_000n);
    expect(await balanceOf(t, a.id, 'dispute_held')).toBe(0n);
    await expectLedgerClean(t);

    const clearingBefore = await balanceOf(t, system, 'processor_clearing');
    const second = await openDispute(t, a, { transaction_id: sale, amount: 8_000 });
    const lost = await disputeCall(t, a, second.dispute.id, 'resolve', { outcome: 'lost' });
    expect(lost.dispute.status).toBe('lost');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(12_000n);
    expect(await balanceOf(t, system, 'processor_clearing')).toBe(clearingBefore + 8_000n);
    const got = await t.call(a, { method: 'GET', url: `/api/transaction/${sale}` });
    expect(got.json().status).toBe('refunded partial');
    await expectLedgerClean(t);

    // Accepted: the rest of the sale, conceded by the merchant; the sale is refunded in full.
    const third = await openDispute(t, a, { transaction_id: sale, amount: 12_000 });
    const accepted = await disputeCall(t, a, third.dispute.id, 'accept');
    expect(accepted.dispute.status).toBe('accepted');
    expect(
      (await t.call(a, { method: 'GET', url: `/api/transaction/${sale}` })).json().status,
    ).toBe('refunded');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    await expectLedgerClean(t);

    // Created at one instant of the test's clock: compared as a set.
    const callbacks = await disputeCallbacks(t, a.id);
    expect(callbacks).toHaveLength(6);
    expect(callbacks).toEqual(
      expect.arrayContaining([
        { type: 'dispute.opened', status: 'needs_response' },
        { type: 'dispute.won', status: 'won' },
        { type: 'dispute.opened', status: 'needs_response' },
        { type: 'dispute.lost', status: 'lost' },
        { type: 'dispute.opened', status: 'needs_response' },
        { type: 'dispute.lost', status: 'accepted' },
      ]),
    );
    const list = await t.call(a, { method: 'GET', url: '/api/disputes' });
    expect(list.json()).toMatchObject({ status: 'success', total: 3 });
    expect(list.json().disputes.map((d: { id: string }) => d.id)).toEqual([
      third.dispute.id,
      second.dispute.id,
      id,
    ]);
  });

  it('records what the wallet cannot cover as debt, never a negative wallet, and a win pays the debt first', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    const sale = await paidSale(t, a, 10_000);
    await settle(t, a);
    const paid = await payout(t, a, { amount: 9_000, order: 'all-out' });
    expect(paid.json().status, paid.body).not.toBe('failed');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(1_000n);

    const opened = await openDispute(t, a, { transaction_id: sale, amount: 4_000 });
    expect(opened.dispute).toMatchObject({ from_wallet: 1_000, debt: 3_000 });
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-3_000n);
    expect(await balanceOf(t, a.id, 'dispute_held')).toBe(4_000n);
    await expectLedgerClean(t);

    await disputeCall(t, a, opened.dispute.id, 'resolve', { outcome: 'won' });
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(1_000n);
    await expectLedgerClean(t);

    // Lost with debt: the debt stays, recorded against the merchant.
    const again = await openDispute(t, a, { transaction_id: sale, amount: 2_000 });
    await disputeCall(t, a, again.dispute.id, 'resolve', { outcome: 'lost' });
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-1_000n);
    await expectLedgerClean(t);
  });

  it('refuses a dispute bigger than what refunds and open disputes leave of the sale, and changes nothing', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    const sale = await paidSale(t, a, 20_000);
    await settle(t, a);
    expect((await nullify(t, a, { id: sale, amount: 15_000 })).json().status).toBe('success');
    const tooBig = await openDispute(t, a, { transaction_id: sale, amount: 5_001 });
    expect(tooBig).toMatchObject({ status: 'failed', type: 'dispute_exceeds_remaining' });
    const fits = await openDispute(t, a, { transaction_id: sale, amount: 3_000 });
    expect(fits.status).toBe('success');
    const over = await openDispute(t, a, { transaction_id: sale, amount: 2_001 });
    expect(over).toMatchObject({ status: 'failed', type: 'dispute_exceeds_remaining' });
    // What the open dispute holds cannot be refunded meanwhile: 2000 left, not 5000.
    const refund = await nullify(t, a, { id: sale, amount: 2_001 });
    expect(refund.json()).toMatchObject({ status: 'failed', type: 'refund_exceeds_paid' });
    const rows = await t.ctx.db
      .selectFrom('disputes')
      .select('id')
      .where('account_id', '=', a.id)
      .execute();
    expect(rows).toHaveLength(1);
    await expectLedgerClean(t);
  });

  it('answers the refusals in the seed shape: unpaid sale, closed dispute, late answer, unknown ids', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const pending = await t.call(a, {
      method: 'POST',
      url: '/api/transaction',
      body: { email: 'p@example.com', order: 'unpaid', subject: 's', amount: 1_000 },
      sign: true,
    });
    const unpaid = await openDispute(t, a, { transaction_id: pending.json().id, amount: 100 });
    expect(unpaid).toMatchObject({ status: 'failed', type: 'transaction_not_disputable' });

    const sale = await paidSale(t, a, 5_000);
    const d = await openDispute(t, a, { transaction_id: sale, amount: 1_000 });
    const id = d.dispute.id as string;
    const other = await t.call(b, { method: 'GET', url: `/api/disputes/${id}` });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ status: 'failed', type: 'Not Found' });
    const notLink = await t.call(a, {
      method: 'POST',
      url: `/api/disputes/${id}/evidence`,
      body: { text: 'x', urls: ['javascript:alert(1)'] },
      sign: true,
    });
    expect(notLink.statusCode).toBe(400);

    await t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { days: 8 } });
    const late = await disputeCall(t, a, id, 'evidence', { text: 'too late' });
    expect(late).toMatchObject({ status: 'failed', type: 'dispute_response_late' });
    await disputeCall(t, a, id, 'resolve', { outcome: 'lost' });
    const closed = await disputeCall(t, a, id, 'accept');
    expect(closed).toMatchObject({ status: 'failed', type: 'dispute_closed' });
    await expectLedgerClean(t);
  });
});

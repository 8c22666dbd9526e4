// Decision 910: a cancellation that commits while a recurring try's charge is in flight, after the processor's last
// "still wanted?" check (decision 825) and before its answer is recorded. Before, the card was charged on a
// subscription whose DELETE had already answered `success` and the merchant was told to refund it; now the answer's
// own commit registers the refund (the API's nullification: ledger, callback), and it is given back to the card
// right after, or by the `refund-dispatch` due work when that was cut short. Never twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { chargeAttempt } from '../../../src/modules/subscriptions/billing-outcome.ts';
import { runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';
import { journalKinds } from '../../../src/platform/ledger/ledger.ts';
import { tryCancelledInFlight } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** A second cycle's try opened, and a context whose processor charges the card, then lets the DELETE commit. */
async function racingTry(name: string, refundFails = false) {
  const a = await t.createAccount(name);
  await t.ctx.db
    .updateTable('accounts')
    .set({ nullification_url: 'https://shop.example/nullification' })
    .where('id', '=', a.id)
    .execute();
  const { attempt, cancel, racing, cycle } = await tryCancelledInFlight(t, a, 4300);
  return {
    a,
    attempt,
    cycle,
    racing: racing({
      // The losing order: the processor's last check passed and the card is charged; the DELETE commits before
      // the answer is recorded.
      chargeStoredCard: async (request) => {
        const outcome = await t.ctx.processor.chargeStoredCard(request);
        expect(outcome.approved).toBe(true);
        await cancel();
        return outcome;
      },
      refund: async (request) => {
        if (refundFails) throw new Error('process killed before the refund reached the processor');
        return t.ctx.processor.refund(request);
      },
    }),
  };
}

async function refundsOf(transactionId: string) {
  return t.ctx.db
    .selectFrom('nullifications')
    .select(['id', 'status', 'amount_minor'])
    .where('transaction_id', '=', transactionId)
    .execute();
}

async function paymentOf(id: string) {
  return t.ctx.db
    .selectFrom('transactions')
    .select(['status', 'refunded_minor'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function callbacksOf(a: TestAccount) {
  return t.ctx.db
    .selectFrom('notifications')
    .select('event_type')
    .where('account_id', '=', a.id)
    .where('event_type', '=', 'nullification.result')
    .execute();
}

describe('a cancellation that commits while the charge is in flight (decision 910)', () => {
  it('refunds the charge at once: nullification, ledger, callback, the cycle cancelled', async () => {
    const { a, attempt, racing, cycle } = await racingTry('Cancelada en el aire');
    await chargeAttempt(racing, attempt);
    const payment = await paymentOf(attempt.transactionId);
    expect([payment.status, String(payment.refunded_minor)]).toEqual(['refunded', '4300']);
    const refunds = await refundsOf(attempt.transactionId);
    expect(refunds.map((r) => [r.status, String(r.amount_minor)])).toEqual([
      ['reverse_completed', '4300'],
    ]);
    const kinds = await t.ctx.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('reference', '=', refunds[0]!.id)
      .execute();
    expect(kinds.map((k) => k.kind)).toContain(journalKinds.refundCollected);
    expect((await callbacksOf(a)).length).toBeGreaterThan(0);
    const { status, paid_at } = await cycle();
    expect({ status, paid_at }).toEqual({ status: 'canceled by paymaster', paid_at: null });
    // A retry of the same try (a worker's restart) finds it final: no second refund.
    await chargeAttempt(t.ctx, attempt);
    expect(await refundsOf(attempt.transactionId)).toHaveLength(1);
  });

  it('a refund whose dispatch was cut short is given back once by the due work', async () => {
    const { attempt, racing } = await racingTry('Reembolso cortado', true);
    await chargeAttempt(racing, attempt);
    // Recorded with the charge, in its commit; the processor was never reached.
    expect((await refundsOf(attempt.transactionId)).map((r) => r.status)).toEqual(['complete']);
    await chargeAttempt(t.ctx, attempt);
    expect(await runRefundDispatch(t.ctx, { limit: 10 })).toBe(0);
    t.clock.advanceMs(t.ctx.config.attemptLeaseMs + 1);
    expect(await runRefundDispatch(t.ctx, { limit: 10 })).toBe(1);
    expect((await refundsOf(attempt.transactionId)).map((r) => r.status)).toEqual([
      'reverse_completed',
    ]);
    expect(await runRefundDispatch(t.ctx, { limit: 10 })).toBe(0);
  });
});

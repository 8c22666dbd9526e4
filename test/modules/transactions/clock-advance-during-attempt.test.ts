// The sandbox clock moved while a checkout attempt is at the processor. The attempt's lease (attempt-claim.ts) is
// dated on the account's clock, so moving that clock past the lease makes a live attempt look abandoned: the advance's
// expiry run (expiry.ts) rejects the sale, and the processor's approval then finds its claim gone ("payment attempt
// lost its claim"): the payer's card was charged, the sale reads rejected, nothing reverses the charge. Across two
// `cobro serve` processes this is the checkout on one and POST /api/sandbox/clock/advance on the other; the test runs
// the attempt's own steps around the advance so the interleaving is exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { transactionLimits } from '../../../src/limits/index.ts';
import { claimAttempt } from '../../../src/modules/transactions/attempt-claim.ts';
import { recordOutcome } from '../../../src/modules/transactions/attempt-outcome.ts';
import { createTransaction } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ clockStart: '2026-03-10T12:00:00Z' });
});
afterAll(async () => {
  await t.close();
});

describe('the sandbox clock moved while an attempt is at the processor', () => {
  it('does not expire the sale under the live attempt, and the approval is recorded', async () => {
    const a = await t.createAccount('Reloj durante el pago');
    const sale = await createTransaction(t, a, {
      order: 'clock-1',
      amount: 5_000,
      expired: '2026-03-10 13:00:00',
      urlreturn: 'https://shop.example/return',
    });
    const attemptId = 'att00000000000000000001';
    // Step 1 of the checkout's attempt: the claim, with its lease.
    const claim = await claimAttempt(t.ctx, {
      transactionId: sale.id,
      accountId: a.id,
      attemptId,
      leaseMs: transactionLimits.attemptLeaseMs,
    });
    expect(claim.kind).toBe('claimed');
    // Another process moves the account's clock a day on, and runs what became due.
    const moved = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 1 },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const during = await t.ctx.db
      .selectFrom('transactions')
      .select('status')
      .where('id', '=', sale.id)
      .executeTakeFirstOrThrow();
    // Step 3: the processor approved the charge (step 2, keyed by the attempt).
    const outcome = await recordOutcome(
      t.ctx,
      {
        transactionId: sale.id,
        accountId: a.id,
        attemptId,
        method: { payment: 1, name: 'Webpay' },
        installments: 0,
        payerIdentifier: null,
        payerBank: null,
        payerIp: null,
      },
      {
        approved: true,
        authorizationCode: '1213',
        cardType: 'VN',
        cardBrand: 'Visa',
        cardLast4: '6623',
        cardToken: null,
      },
    );
    expect(during.status).toBe('pending');
    expect(outcome.kind).toBe('approved');
  });
});

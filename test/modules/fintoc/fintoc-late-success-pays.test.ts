// Decision 1055: Fintoc sends `payment_intent.failed` for a sale's intent, then `payment_intent.succeeded` for the
// same intent. When the sale is still payable, the late success pays it as a Fintoc success in time does (the sale
// `success`, one capture, the merchant's callback, reconcile matching the movement); when the sale is not (held by a
// card try under way, paid by it, or Fintoc's amount not the sale's), nothing is paid twice and the money is
// reported as decision 1012 says. The card try is the shared attempt code itself (claimAttempt, recordOutcome), as
// the card checkout calls it. Through Fintoc's signed webhook against the simulator and `cobro fintoc reconcile`.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { fintocWebhook, startFintocShop } from '../../support/fintoc-shop.ts';
import { lateSuccessShop } from './late-success-shop.ts';
import { capturesOf, createTransaction, saleStatusOf } from '../transactions/helpers.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { claimAttempt } from '../../../src/modules/transactions/attempt-claim.ts';
import { recordOutcome } from '../../../src/modules/transactions/attempt-outcome.ts';
import { recordSuccesses } from '../../../src/modules/transactions/success-record.ts';
import { lateAttemptId } from '../../../src/modules/fintoc/late-success.ts';
import { transactionLimits } from '../../../src/limits/index.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { formatTimestamp } from '../../../src/platform/time/time-format.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;
const { failedIntent, attemptsOf, callbacksOf, reconcileOf } = lateSuccessShop(() => ({
  t,
  sim,
  shop,
}));
const errors: { msg: string; transaction?: string }[] = [];
const refundByHand = 'Fintoc payment of a sale decided otherwise: refund it by hand';

beforeAll(async () => {
  const logger = pino(
    { level: 'error' },
    new Writable({
      write(chunk, _encoding, done) {
        errors.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  ({ t, sim, shop } = await startFintocShop(
    'Tienda Tardía',
    'fb',
    { payouts: { fundMinor: 10_000 } },
    logger,
  ));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/**
 * A sale naming a urlnotify, sent to Fintoc's page and paid there; Fintoc then reports its intent failed (the
 * attempt declined, the sale left open): the sale and the intent as Fintoc's payment_intent.* events carry it.
 */

const webhook = (type: string, data: Record<string, unknown>) =>
  fintocWebhook(t, sim, shop, type, data);

const succeeded = (intent: Record<string, unknown>) =>
  webhook('payment_intent.succeeded', { ...intent, status: 'succeeded' });

const errorsOf = (saleId: string) =>
  errors.filter((e) => e.transaction === saleId).map((e) => e.msg);

/** A card try of the sale, through the shared attempt code: it claims the sale (held while the acquirer answers). */
async function cardClaim(saleId: string, attemptId: string) {
  return claimAttempt(t.ctx, {
    transactionId: saleId,
    accountId: shop.id,
    attemptId,
    leaseMs: 60_000,
  });
}

/** The card try's approval recorded, as the card checkout records it. */
async function cardPaid(saleId: string, attemptId: string) {
  return recordOutcome(
    t.ctx,
    {
      transactionId: saleId,
      accountId: shop.id,
      attemptId,
      method: { payment: 1, name: 'Webpay' },
      installments: 0,
      payerIdentifier: null,
      payerBank: null,
      payerIp: null,
    },
    {
      approved: true,
      authorizationCode: 'card-auth-1',
      cardType: 'VN',
      cardBrand: 'visa',
      cardLast4: '4242',
      cardToken: null,
    },
  );
}

describe('payment_intent.succeeded after payment_intent.failed for the same intent', () => {
  it('pays the sale still open: success, one capture, the callback, reconcile matches, nothing logged', async () => {
    const { sale, intent } = await failedIntent('late-1', 15000);
    errors.length = 0;
    expect(await succeeded(intent)).toBe('approved');
    expect(await saleStatusOf(t, sale.id)).toBe('success');
    expect(await capturesOf(t, sale.id)).toBe(1);
    expect(await callbacksOf('late-1')).toEqual(['success']);
    expect(await attemptsOf(sale.id)).toEqual(['Fintoc:declined', 'Fintoc:approved']);
    expect(errorsOf(sale.id)).toEqual([]);
    // Fintoc delivers the same news again (another event): the sale is paid already, nothing more is written.
    expect(await succeeded(intent)).toBe('final');
    expect(await capturesOf(t, sale.id)).toBe(1);
    expect(await callbacksOf('late-1')).toEqual(['success']);
    expect(errorsOf(sale.id)).toEqual([]);
    expect(await reconcileOf(intent)).toEqual([]);
  });

  it('a stop between the sale paid and its session marked: the redelivery finishes the mark, nothing reported', async () => {
    // Decision 1070: payLate pays the sale in one transaction and marks the session `approved` in the next; a
    // process stopped between them (or a second `cobro serve` handling the same event, having read the session
    // still `declined`) met the sale paid by this very intent and logged "refund it by hand" for money the sale holds.
    const { sale, intent } = await failedIntent('late-5', 14000);
    expect(await succeeded(intent)).toBe('approved');
    await t.ctx.db
      .updateTable('processor_sessions')
      .set({ state: 'declined' })
      .where('transaction_id', '=', sale.id)
      .execute();
    errors.length = 0;
    expect(await succeeded(intent)).toBe('final');
    expect(errorsOf(sale.id)).toEqual([]);
    expect(await capturesOf(t, sale.id)).toBe(1);
    expect(await callbacksOf('late-5')).toEqual(['success']);
    expect(await reconcileOf(intent)).toEqual([]);
  });

  it('while a card try holds the sale the late success loses and is reported; the card pays once', async () => {
    const { sale, intent } = await failedIntent('late-2', 12000);
    expect((await cardClaim(sale.id, 'att_card_late_2')).kind).toBe('claimed');
    errors.length = 0;
    expect(await succeeded(intent)).toBe('in_progress');
    expect(errorsOf(sale.id)).toEqual([refundByHand]);
    expect(await saleStatusOf(t, sale.id)).toBe('pending');
    expect((await cardPaid(sale.id, 'att_card_late_2')).kind).toBe('approved');
    expect(await saleStatusOf(t, sale.id)).toBe('success');
    expect(await capturesOf(t, sale.id)).toBe(1);
    expect(await callbacksOf('late-2')).toEqual(['success']);
    expect(await reconcileOf(intent)).toEqual(['unmatched_movement']);
  });

  it('the late success first: the card try that follows finds the sale paid and charges nothing', async () => {
    const { sale, intent } = await failedIntent('late-3', 11000);
    expect(await succeeded(intent)).toBe('approved');
    expect(await cardClaim(sale.id, 'att_card_late_3')).toEqual({
      kind: 'final',
      status: 'success',
    });
    expect(await capturesOf(t, sale.id)).toBe(1);
    expect(await reconcileOf(intent)).toEqual([]);
  });

  it('Fintoc reporting another amount than the sale pays nothing and is reported (decision 965)', async () => {
    const { sale, intent } = await failedIntent('late-4', 13000);
    errors.length = 0;
    expect(await succeeded({ ...intent, amount: 13001 })).toBe('final');
    expect(await saleStatusOf(t, sale.id)).toBe('pending');
    expect(await capturesOf(t, sale.id)).toBe(0);
    expect(errorsOf(sale.id)).toEqual([
      'Fintoc reports a payment for another amount or currency than the sale: declined; refund it by hand',
    ]);
    expect(await reconcileOf(intent)).toEqual(['unmatched_movement']);
  });
});

// Decision 1080: the cases decisions 1055 and 1070 left untested or open. A sale whose payment window passed is not
// paid by the late success; the same late success delivered twice at once, over real HTTP, pays once and tells the
// operator nothing; a delivery stopped after its claim is finished by Fintoc's next delivery of the event.
describe('a late Fintoc success: expiry, simultaneous deliveries, a stop after the claim', () => {
  let baseUrl = '';
  beforeAll(async () => {
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });

  /**
   * The news posted at once over real HTTP, as Fintoc's retries and its other events carrying it can arrive: one
   * event twice and `others` more events of their own ids.
   */
  async function deliveredAtOnce(intent: Record<string, unknown>, others: number) {
    const data = { ...intent, status: 'succeeded' };
    const same = sim.signedEvent('payment_intent.succeeded', data);
    const events = [same, same];
    for (let i = 0; i < others; i++) events.push(sim.signedEvent('payment_intent.succeeded', data));
    const answers = await Promise.all(
      events.map(async (ev) => {
        const res = await fetch(`${baseUrl}/webhooks/fintoc/${shop.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
          body: ev.body,
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { result: string }).result;
      }),
    );
    return answers;
  }

  it('a sale whose payment window passed is rejected as expired, not paid, and the money reported', async () => {
    const { sale, intent } = await failedIntent('late-6', 9000, {
      urlreturn: 'https://tienda.example/back',
      expired: formatTimestamp(new Date(t.clock.now().getTime() + 6 * 60_000), 'America/Santiago'),
    });
    t.clock.advanceMs(7 * 60_000);
    errors.length = 0;
    expect(await succeeded(intent)).toBe('expired');
    expect(await saleStatusOf(t, sale.id)).toBe('rejected');
    expect(await capturesOf(t, sale.id)).toBe(0);
    expect(await callbacksOf('late-6')).toEqual(['failed']);
    expect(errorsOf(sale.id)).toEqual([refundByHand]);
    expect(await reconcileOf(intent)).toEqual(['unmatched_movement']);
    // Rejected by the expiry's due work before the news arrives: the same, reported, nothing paid.
    const { sale: other, intent: otherIntent } = await failedIntent('late-7', 9500, {
      urlreturn: 'https://tienda.example/back',
      expired: formatTimestamp(new Date(t.clock.now().getTime() + 6 * 60_000), 'America/Santiago'),
    });
    t.clock.advanceMs(7 * 60_000);
    await drainDueWork(t.ctx, shop.id);
    expect(await saleStatusOf(t, other.id)).toBe('rejected');
    expect(await succeeded(otherIntent)).toBe('final');
    expect(await capturesOf(t, other.id)).toBe(0);
    expect(await callbacksOf('late-7')).toEqual(['failed']);
    expect(errorsOf(other.id)).toEqual([refundByHand]);
    expect(await reconcileOf(otherIntent)).toEqual(['unmatched_movement']);
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });

  it('the same late success delivered at once pays once and logs nothing', async () => {
    const sales = [];
    for (const order of ['late-8', 'late-9', 'late-10', 'late-11'])
      sales.push({ order, ...(await failedIntent(order, 8000)) });
    errors.length = 0;
    const answers = await Promise.all(sales.map((s) => deliveredAtOnce(s.intent, 2)));
    for (const [i, s] of sales.entries()) {
      expect(answers[i]!.filter((a) => a === 'approved').length, s.order).toBeGreaterThan(0);
      const quiet = ['approved', 'final', 'duplicate'];
      expect(
        answers[i]!.filter((a) => !quiet.includes(a)),
        s.order,
      ).toEqual([]);
      expect(errorsOf(s.sale.id), s.order).toEqual([]);
      expect(await saleStatusOf(t, s.sale.id)).toBe('success');
      expect(await capturesOf(t, s.sale.id)).toBe(1);
      expect(await callbacksOf(s.order)).toEqual(['success']);
      expect(await attemptsOf(s.sale.id)).toEqual(['Fintoc:declined', 'Fintoc:approved']);
      expect(await reconcileOf(s.intent)).toEqual([]);
    }
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });

  it('a delivery stopped after its claim: the next delivery pays the sale, lease live or run out', async () => {
    for (const [order, leaseRunOut] of [
      ['late-12', false],
      ['late-13', true],
    ] as const) {
      const { sale, intent } = await failedIntent(order, 7000);
      // What a process killed between payLate's claim and its record leaves: the sale held by the late attempt.
      const session = await t.ctx.db
        .selectFrom('processor_sessions')
        .selectAll()
        .where('transaction_id', '=', sale.id)
        .executeTakeFirstOrThrow();
      const claim = await claimAttempt(t.ctx, {
        transactionId: sale.id,
        accountId: shop.id,
        attemptId: lateAttemptId(session),
        leaseMs: transactionLimits.acquirer.redirectLeaseMs,
      });
      expect(claim.kind).toBe('claimed');
      if (leaseRunOut) t.clock.advanceMs(transactionLimits.acquirer.redirectLeaseMs + 1000);
      errors.length = 0;
      // Fintoc had no answer, so it delivers the event again.
      expect(await succeeded(intent), order).toBe('approved');
      expect(errorsOf(sale.id), order).toEqual([]);
      expect(await saleStatusOf(t, sale.id)).toBe('success');
      expect(await capturesOf(t, sale.id)).toBe(1);
      expect(await callbacksOf(order)).toEqual(['success']);
      expect(await reconcileOf(intent)).toEqual([]);
    }
  });
});

// Decision 1043 left success-record.ts's `answerOf` reading only `success`: a card group's commit whose answer was
// lost, recorded again alone after a refund moved its sale, logged decision 150's false "lost its claim". Here, as
// it shares this app's funded shop: the operator's refund recorded between the two records (record-external).
describe('a card payment recorded again alone after a refund', () => {
  it('is answered paid by its own record, nothing logged', async () => {
    const sale = await createTransaction(t, shop, { order: 'again-1', amount: 6000 });
    const claim = await cardClaim(sale.id, 'att_card_again_1');
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    const payment = {
      facts: {
        transactionId: sale.id,
        accountId: shop.id,
        attemptId: 'att_card_again_1',
        method: { payment: 1, name: 'Webpay' },
        installments: 0,
        payerIdentifier: null,
        payerBank: null,
        payerIp: null,
      },
      outcome: {
        approved: true,
        authorizationCode: 'card-auth-again',
        cardType: 'VN',
        cardBrand: 'visa',
        cardLast4: '4242',
        cardToken: null,
      },
      claimed: claim.row,
    } as const;
    expect((await recordSuccesses(t.ctx, shop.id, [payment]))[0]!.kind).toBe('approved');
    const refunded = await dispatch(
      ['refunds', 'record-external', sale.id, '--amount', '2000', '--reference', 'portal 2000'],
      t.ctx,
    );
    expect(refunded.exitCode, refunded.stderr).toBe(0);
    expect(await saleStatusOf(t, sale.id)).toBe('refunded partial');
    errors.length = 0;
    const again = await recordSuccesses(t.ctx, shop.id, [payment]);
    expect(again[0]!.kind).toBe('approved');
    expect(errors).toEqual([]);
    expect(await capturesOf(t, sale.id)).toBe(1);
    expect(await saleStatusOf(t, sale.id)).toBe('refunded partial');
  });
});

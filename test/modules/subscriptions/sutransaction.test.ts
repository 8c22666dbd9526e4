// POST /api/sutransaction (reference §7.11, §8.4): a synchronous charge on a subscription's stored card, booked as
// a paid transaction; a repeated order or Idempotency-Key never charges twice, even 20 at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { activeSubscription, createPlan, createSuClient } from './helpers.ts';
import type { AppContext } from '../../../src/platform/context.ts';
import type { StoredCardCharge } from '../../../src/platform/processors/processor.ts';
import { openConsumptionCharge } from '../../../src/modules/subscriptions/consumption.ts';
import { settleCharge } from '../../../src/modules/subscriptions/stored-charge.ts';
import { inTransaction } from '../../../src/platform/db/unit-of-work.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Delivery');
});
afterAll(async () => {
  await t.close();
});

async function enrolled(planBody: Record<string, unknown> = {}) {
  return (await activeSubscription(t, merchant, planBody)).id;
}

function charge(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.call(merchant, { method: 'POST', url: '/api/sutransaction', sign: true, body, headers });
}

describe('POST /api/sutransaction', () => {
  it('charges the stored card and answers the reference shape; the payment is a paid transaction in the ledger', async () => {
    const sub = await enrolled();
    const res = await charge({
      suscription: sub,
      amount: '10000',
      order: '001',
      description: 'Pedido 001',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual([
      'status',
      'order',
      'amount',
      'transaction_id',
      'verification_key',
    ]);
    expect(body).toMatchObject({ status: 'success', order: '001', amount: '10000' });
    expect(body.transaction_id).toMatch(/^\d+$/);
    expect(body.verification_key).toMatch(/^[0-9a-f]{64}$/);
    const got = (
      await t.call(merchant, { method: 'GET', url: `/api/sususcription/${sub}`, sign: true })
    ).json();
    expect(got.transactions).toEqual([
      {
        created_at: '2026-03-10 12:00:00',
        amount: 10000,
        transaction: Number(body.transaction_id),
        authorization_code: expect.stringMatching(/^\d{6}$/),
        order: '001',
        description: 'Pedido 001',
        status: 'success',
      },
    ]);
    const capture = await t.ctx.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('kind', '=', 'transaction.capture')
      .execute();
    expect(capture).toHaveLength(1);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);

    const number = await charge(
      { suscription: sub, amount: 2500, order: 2 },
      { 'idempotency-key': 'k-2' },
    );
    expect(number.json()).toMatchObject({ status: 'success', order: '2', amount: '2500' });
    const replay = await charge(
      { suscription: sub, amount: 2500, order: 2 },
      { 'idempotency-key': 'k-2' },
    );
    expect(replay.body).toBe(number.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it("holds a charge for the request's IDEMPOTENCY_LEASE_MS, so the retry after a crash takes the charge over", async () => {
    const sub = await enrolled();
    const opened = await inTransaction(t.ctx.db, (tx) =>
      openConsumptionCharge({ ...t.ctx, db: tx }, merchant.id, {
        suscription: sub,
        amount: 1200,
        order: 'crash-1',
      }),
    );
    if (!('transactionId' in opened)) throw new Error('not opened');
    // The process that claimed the charge dies inside the processor call: its call never returns.
    let release!: () => void;
    const calledOnce = new Promise<void>((resolve) => {
      release = resolve;
    });
    const stuck: AppContext = {
      ...t.ctx,
      processor: {
        ...t.ctx.processor,
        chargeStoredCard: async (request: StoredCardCharge) => {
          await calledOnce;
          return t.ctx.processor.chargeStoredCard(request);
        },
      },
    };
    const dying = settleCharge(stuck, opened.transactionId);
    let claimed;
    do
      claimed = await t.ctx.db
        .selectFrom('transactions')
        .select(['attempt_lease_until', 'updated_at'])
        .where('id', '=', opened.transactionId)
        .executeTakeFirstOrThrow();
    while (claimed.attempt_lease_until === null);
    expect(claimed.attempt_lease_until.getTime() - claimed.updated_at.getTime()).toBe(
      t.ctx.config.idempotencyLeaseMs,
    );
    // Past the request's lease, the retry (the one that took the Idempotency-Key over) charges and answers success.
    t.clock.advanceMs(t.ctx.config.idempotencyLeaseMs + 1);
    expect((await settleCharge(t.ctx, opened.transactionId)).status).toBe('success');
    release();
    expect((await dying).status).toBe('success');
    const captures = await t.ctx.db
      .selectFrom('journal_entries')
      .select('id')
      .where('kind', '=', 'transaction.capture')
      .where('reference', '=', opened.transactionId)
      .execute();
    expect(captures).toHaveLength(1);
  });

  it('answers a repeated order with the first charge, and refuses it with other parameters', async () => {
    const sub = await enrolled();
    const first = await charge({ suscription: sub, amount: 700, order: 'rep-1' });
    const again = await charge({ suscription: sub, amount: '700', order: 'rep-1' });
    expect(again.json()).toEqual(first.json());
    const other = await charge({ suscription: sub, amount: 701, order: 'rep-1' });
    expect(other.json()).toEqual({
      status: 'failed',
      type: 'duplicate_order',
      message_error: 'order rep-1 was already used with different parameters',
    });
    const count = await t.ctx.db
      .selectFrom('su_charges')
      .select('transaction_id')
      .where('order_ref', '=', 'rep-1')
      .execute();
    expect(count).toHaveLength(1);
  });

  it('charges once when 20 requests with one order arrive together', async () => {
    const sub = await enrolled();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => charge({ suscription: sub, amount: 990, order: 'race-1' })),
    );
    const bodies = answers.map((a) => a.json());
    const ids = new Set(bodies.map((b) => b.transaction_id));
    expect(ids.size).toBe(1);
    expect(bodies.every((b) => b.status === 'success')).toBe(true);
    const payments = await t.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('order', '=', 'race-1')
      .execute();
    expect(payments).toHaveLength(1);
    const captures = await t.ctx.db
      .selectFrom('journal_entries')
      .select('id')
      .where('kind', '=', 'transaction.capture')
      .where('reference', '=', payments[0]!.id)
      .execute();
    expect(captures).toHaveLength(1);
  });

  it('answers a declined card with HTTP 200 failed and moves no money', async () => {
    const sub = await enrolled();
    // The sandbox's declined Mastercard cannot pass enrolment's check; its stored token stands for a card declined later.
    await t.ctx.db
      .updateTable('su_cards')
      .set({ processor_token: `tok_0568${'a'.repeat(20)}` })
      .where('subscription_id', '=', sub)
      .execute();
    const res = await charge({ suscription: sub, amount: 5000, order: 'dec-1' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'failed', order: 'dec-1', amount: '5000' });
    const got = (
      await t.call(merchant, { method: 'GET', url: `/api/sususcription/${sub}`, sign: true })
    ).json();
    expect(got.transactions.at(-1)).toMatchObject({ order: 'dec-1', status: 'rejected' });
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  it('refuses what cannot be charged', async () => {
    const sub = await enrolled();
    const cases: Array<[Record<string, unknown>, Record<string, string>]> = [
      [{ suscription: 'su00000000000000000000', amount: 1 }, { suscription: 'not found' }],
      [{ suscription: sub, amount: 1, card: 'sure00000000000000000000' }, { card: 'not found' }],
      [{ suscription: sub }, { amount: 'is empty' }],
      [
        { suscription: sub, amount: 1, marketplace: 'ma0690b6451a7043d5' },
        { marketplace: 'invalid' },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await charge(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors, JSON.stringify(body)).toEqual(errors);
    }
    const plan = await createPlan(t, merchant, { name: 'Otro' });
    const client = await createSuClient(t, merchant, { email: 'nocard@example.com' });
    const registered = (
      await t.call(merchant, {
        method: 'POST',
        url: '/api/sususcription',
        sign: true,
        body: { plan, client },
      })
    ).json().id;
    const refused = await charge({ suscription: registered, amount: 100, order: 'nc-1' });
    expect(refused.json()).toEqual({
      status: 'failed',
      type: 'subscription_not_chargeable',
      message_error: `subscription ${registered} cannot be charged: it is register`,
    });
    expect(
      await t.ctx.db.selectFrom('transactions').select('id').where('order', '=', 'nc-1').execute(),
    ).toHaveLength(0);
  });
});

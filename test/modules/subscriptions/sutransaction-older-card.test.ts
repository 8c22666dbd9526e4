// POST /api/sutransaction naming an older card (decision 1140): `card` may be any of the subscription's live cards,
// as POST /api/suscriptionsdeletecards finds it, not only the newest cardsPerSubscriptionMax that its reads show.
// Nothing bounds the cards one subscription enrols (each new card link adds one), so the bound of what a read
// shows is not the bound of what may be charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { subscriptionLimits } from '../../../src/limits/index.ts';
import { activeSubscription, enrolOn, newCardLink } from './helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Delivery');
});
afterAll(async () => {
  await t.close();
});

function charge(body: Record<string, unknown>) {
  return t.call(merchant, { method: 'POST', url: '/api/sutransaction', sign: true, body });
}

describe('POST /api/sutransaction with card', () => {
  it('charges a live card older than the newest cardsPerSubscriptionMax, as the card removal finds it', async () => {
    const { id } = await activeSubscription(t, merchant);
    for (let i = 0; i < subscriptionLimits.cardsPerSubscriptionMax; i++)
      await enrolOn(t, await newCardLink(t, merchant, id));
    const oldest = await t.ctx.db
      .selectFrom('su_cards')
      .select('id')
      .where('subscription_id', '=', id)
      .orderBy('seq')
      .limit(1)
      .executeTakeFirstOrThrow();

    const res = await charge({ suscription: id, amount: '1000', order: 'old-1', card: oldest.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success', order: 'old-1', amount: '1000' });
    const charged = await t.ctx.db
      .selectFrom('su_charges')
      .select('card_id')
      .where('order_ref', '=', 'old-1')
      .executeTakeFirstOrThrow();
    expect(charged.card_id).toBe(oldest.id);

    const removed = await t.call(merchant, {
      method: 'POST',
      url: '/api/suscriptionsdeletecards',
      sign: true,
      body: { card: oldest.id },
    });
    expect(removed.json()).toEqual({ status: 'Delete', card: oldest.id });
    const gone = await charge({ suscription: id, amount: '1000', order: 'old-2', card: oldest.id });
    expect(gone.statusCode).toBe(400);
    expect(gone.json().errors).toEqual({ card: 'not found' });
  });
});

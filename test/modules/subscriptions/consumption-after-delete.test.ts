// A consumption charge (POST /api/sutransaction) racing DELETE /api/sususcription/{id}: the route opens the charge
// in one commit and sends it to the processor after it (afterCommit). A DELETE that commits in between answers
// "nothing is charged after it" (its route's summary), yet the charge's claim passes no `stillWanted` (decision 670
// gave consumption charges only the deleted-card rule), so the card is charged after the DELETE answered. Across two
// `cobro serve` processes the DELETE lands in that gap whenever its commit beats the charge process's claim; the test
// runs the two commits in that order through the route's own two steps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { createPlan, subscribedWithCard } from './helpers.ts';
import {
  finishConsumptionCharge,
  openConsumptionCharge,
} from '../../../src/modules/subscriptions/consumption.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('a consumption charge opened before its subscription was deleted', () => {
  it('is not charged once the DELETE has answered', async () => {
    const a = await t.createAccount('Consumo y baja');
    const plan = await createPlan(t, a, { name: 'Mensual', amount: 4000 });
    const sub = await subscribedWithCard(t, a, plan);
    // The charge request's first commit: the charge and its pending payment (the subscription still active).
    const opened = await t.ctx.db.transaction().execute((tx) =>
      openConsumptionCharge({ ...t.ctx, db: tx }, a.id, {
        suscription: sub.id,
        amount: 2_500,
        order: 'consumo-1',
      }),
    );
    expect(opened).toMatchObject({ order: 'consumo-1' });
    // The DELETE from another process commits and answers before the charge process claims the payment.
    const del = await t.call(a, {
      method: 'DELETE',
      url: `/api/sususcription/${sub.id}`,
      sign: true,
    });
    expect(del.json()).toMatchObject({ status: 'success' });
    // The charge request's after-commit step: the processor call.
    const answered = await finishConsumptionCharge(t.ctx, opened);
    const transactionId = 'transactionId' in opened ? opened.transactionId : '';
    const captures = await t.ctx.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('reference', '=', transactionId)
      .execute();
    // As decision 670 does for a recurring try: declined unsent, nothing captured.
    expect(captures).toEqual([]);
    expect(answered).toMatchObject({ status: 'failed' });
    const payment = await t.ctx.db
      .selectFrom('transactions')
      .select(['gateway_message', 'attempt_id'])
      .where('id', '=', transactionId)
      .executeTakeFirstOrThrow();
    // Never sent (decision 760): no attempt reached the processor, and the payment says why in Spanish.
    expect(payment).toEqual({
      gateway_message: 'Cobro no enviado: la suscripción terminó.',
      attempt_id: null,
    });
  });
});

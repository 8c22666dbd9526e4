// Decision 825: a cancellation that commits after a recurring try's claim (decision 670's re-check) but before the
// processor is asked to charge. Before, the try went on and charged the card of a subscription whose DELETE had
// already answered; now the processor asks once more, right before it sends a first authorize, and the try is
// declined unsent. The sandbox processor and Oneclick Mall (production) both ask.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { chargeAttempt } from '../../../src/modules/subscriptions/billing-outcome.ts';
import { tryCancelledInFlight } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('a cancellation between the claim and the processor call', () => {
  it('declines the try unsent: no money, the cycle cancelled', async () => {
    const a = await t.createAccount('Cancelada en vuelo');
    const { attempt, cancel, racing: racingWith, cycle } = await tryCancelledInFlight(t, a, 4100);
    // The claim has committed (the payment's attempt id is set) when the processor is reached: the DELETE lands now.
    const racing = racingWith({
      chargeStoredCard: async (request) => {
        const claimed = await t.ctx.db
          .selectFrom('transactions')
          .select('attempt_id')
          .where('id', '=', attempt.transactionId)
          .executeTakeFirstOrThrow();
        expect(claimed.attempt_id).not.toBeNull();
        await cancel();
        return t.ctx.processor.chargeStoredCard(request);
      },
    });
    await chargeAttempt(racing, attempt);
    const payment = await t.ctx.db
      .selectFrom('transactions')
      .select(['status', 'gateway_message'])
      .where('id', '=', attempt.transactionId)
      .executeTakeFirstOrThrow();
    expect(payment).toEqual({
      status: 'rejected',
      gateway_message: 'Cobro no enviado: la suscripción terminó.',
    });
    const { status, attempt_key } = await cycle();
    expect({ status, attempt_key }).toEqual({ status: 'canceled by paymaster', attempt_key: null });
    const entries = await t.ctx.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('reference', '=', attempt.transactionId)
      .execute();
    expect(entries).toEqual([]);
  });
});

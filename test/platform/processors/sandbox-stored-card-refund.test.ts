import { describe, expect, it } from 'vitest';
import {
  sandboxProcessor,
  sandboxTestCards,
} from '../../../src/platform/processors/sandbox-processor.ts';
import { processorFor } from '../../../src/platform/processors/index.ts';
import type {
  ApprovedCharge,
  StoredCardCharge,
} from '../../../src/platform/processors/processor.ts';

async function approvedToken(number: string, cvv: string): Promise<string> {
  const outcome = await sandboxProcessor.charge({
    kind: 'card',
    idempotencyKey: 'att1',
    amountMinor: 1000n,
    currency: 'CLP',
    description: 'd',
    card: { number, cvv, expiryMonth: 12, expiryYear: 2030 },
    installments: 0,
  });
  expect(outcome.approved).toBe(true);
  return (outcome as ApprovedCharge).cardToken!;
}

function stored(cardToken: string, installments = 0): StoredCardCharge {
  return {
    cardToken,
    idempotencyKey: 'sub1',
    amountMinor: 5000n,
    currency: 'CLP',
    description: 'monthly',
    installments,
  };
}

describe('sandbox processor: stored cards', () => {
  it('charges the token of every approved test card again, with the same brand, last four and token', async () => {
    // 4000 0000 0000 0341 enrols (approved) but declines once stored (decision 101): it is the exception here.
    for (const c of sandboxTestCards.filter((t) => t.approved)) {
      const token = await approvedToken(c.number, c.cvv ?? '999');
      expect(token).toMatch(/^tok_[0-9a-f]{24}$/);
      const again = await sandboxProcessor.chargeStoredCard(stored(token));
      if (c.storedDeclined === true) {
        expect(again, c.number).toMatchObject({ approved: false, cardLast4: c.number.slice(-4) });
        continue;
      }
      expect(again).toMatchObject({
        approved: true,
        cardLast4: c.number.slice(-4),
        cardToken: token,
      });
      expect((again as ApprovedCharge).authorizationCode).toMatch(/^\d{6}$/);
    }
    expect(sandboxTestCards.filter((t) => t.storedDeclined === true).map((t) => t.number)).toEqual([
      '4000000000000341',
    ]);
    const credit = await approvedToken('4051885600446623', '123');
    expect(await sandboxProcessor.chargeStoredCard(stored(credit, 3))).toMatchObject({
      approved: true,
      cardType: 'VC',
    });
  });

  it('declines a token of a declining test card and a token the sandbox never gave', async () => {
    expect(
      await sandboxProcessor.chargeStoredCard(stored(`tok_0568${'a'.repeat(20)}`)),
    ).toMatchObject({
      approved: false,
      cardLast4: '0568',
      gatewayMessage: 'Rechazo de transacción.',
    });
    for (const token of [
      'tok_1111aaaaaaaaaaaaaaaaaaaa',
      'tok_',
      'nonsense',
      `tok_6623${'z'.repeat(20)}`,
    ]) {
      expect(await sandboxProcessor.chargeStoredCard(stored(token))).toMatchObject({
        approved: false,
        cardLast4: null,
      });
    }
  });
});

describe('sandbox processor: refunds', () => {
  const base = {
    chargeIdempotencyKey: 'att123',
    authorizationCode: '107742',
    idempotencyKey: 'rf1',
    amountMinor: 500n,
    currency: 'CLP',
  };

  it('approves a refund of a sandbox authorization, the same code for the same key', async () => {
    const first = await sandboxProcessor.refund(base);
    expect(first).toMatchObject({ approved: true });
    expect(await sandboxProcessor.refund(base)).toEqual(first);
    const other = await sandboxProcessor.refund({ ...base, idempotencyKey: 'rf2' });
    expect(
      other.approved === true && first.approved === true && other.refundCode !== first.refundCode,
    ).toBe(true);
  });

  it('declines an unknown authorization and an amount that is not positive', async () => {
    expect(await sandboxProcessor.refund({ ...base, authorizationCode: '1234' })).toEqual({
      approved: false,
      gatewayMessage: 'unknown authorization',
    });
    expect(await sandboxProcessor.refund({ ...base, chargeIdempotencyKey: '' })).toMatchObject({
      approved: false,
    });
    expect(await sandboxProcessor.refund({ ...base, amountMinor: 0n })).toMatchObject({
      approved: false,
    });
  });

  it('production has no processor: refunds and stored-card charges fail loudly instead of approving', async () => {
    const none = processorFor('production');
    await expect(none.refund(base)).rejects.toThrow(/no payment processor/);
    await expect(none.chargeStoredCard(stored('tok_x'))).rejects.toThrow(/no payment processor/);
  });
});

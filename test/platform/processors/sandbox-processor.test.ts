import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  sandboxProcessor,
  sandboxTestCards,
} from '../../../src/platform/processors/sandbox-processor.ts';
import { luhnValid, type CardCharge } from '../../../src/platform/processors/processor.ts';
import { normaliseRut, formatRut } from '../../../src/platform/ids/rut.ts';

function card(number: string, cvv: string, installments = 0): CardCharge {
  return {
    kind: 'card',
    idempotencyKey: 'att1',
    amountMinor: 1000n,
    currency: 'CLP',
    description: 'd',
    card: { number, cvv, expiryMonth: 12, expiryYear: 2030 },
    installments,
  };
}

describe('sandbox processor', () => {
  it('decides every reference §13.2 test card as listed and reports only brand and last four', async () => {
    const expected: Record<string, [boolean, string | null]> = {
      '4051885600446623': [true, 'VN'],
      '370000000002032': [true, 'VN'],
      '5186059559590568': [false, null],
      '4051884239937763': [true, 'VD'],
      '5186008541233829': [false, null],
      '4051886000056590': [true, 'VP'],
      '5186174110629480': [false, null],
      '4000000000000341': [true, 'VN'],
    };
    for (const c of sandboxTestCards) {
      expect(luhnValid(c.number)).toBe(true);
      const outcome = await sandboxProcessor.charge(card(c.number, c.cvv ?? '999'));
      expect(outcome.approved).toBe(expected[c.number]![0]);
      expect(outcome.cardLast4).toBe(c.number.slice(-4));
      if (outcome.approved) {
        expect(outcome.cardType).toBe(expected[c.number]![1]);
        expect(outcome.authorizationCode).toMatch(/^\d{6}$/);
        expect(JSON.stringify(outcome)).not.toContain(c.number);
      }
    }
    expect(
      (await sandboxProcessor.charge(card('4051885600446623', '123', 3))).approved && 'VC',
    ).toBe('VC');
  });

  it('declines any other Luhn-valid card and a wrong CVV with a message saying why', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^4\d{15}$/), async (n) => {
        fc.pre(luhnValid(n) && !sandboxTestCards.some((c) => c.number === n));
        const outcome = await sandboxProcessor.charge(card(n, '123'));
        return !outcome.approved && outcome.payerMessage.includes('tarjetas de prueba');
      }),
      { numRuns: 50 },
    );
    const wrong = await sandboxProcessor.charge(card('4051885600446623', '321'));
    expect(wrong.approved).toBe(false);
    expect(!wrong.approved && wrong.payerMessage).toContain('CVV');
  });

  it('approves 4000 0000 0000 0341 once and declines every later charge of its stored token', async () => {
    const first = await sandboxProcessor.charge(card('4000000000000341', '123'));
    expect(first.approved).toBe(true);
    const token = first.approved ? first.cardToken! : '';
    const later = await sandboxProcessor.chargeStoredCard({
      cardToken: token,
      installments: 0,
      idempotencyKey: 'k',
      amountMinor: 1000n,
      currency: 'CLP',
      description: 'd',
    });
    expect(later).toMatchObject({ approved: false, cardBrand: 'Visa', cardLast4: '0341' });
    const good = await sandboxProcessor.charge(card('4051885600446623', '123'));
    const stored = await sandboxProcessor.chargeStoredCard({
      cardToken: good.approved ? good.cardToken! : '',
      installments: 0,
      idempotencyKey: 'k',
      amountMinor: 1000n,
      currency: 'CLP',
      description: 'd',
    });
    expect(stored.approved).toBe(true);
  });

  it('approves the bank login 11.111.111-1 / 123 only', async () => {
    const base = {
      kind: 'bank_transfer' as const,
      idempotencyKey: 'a',
      amountMinor: 1n,
      currency: 'CLP',
      description: 'd',
      bankCode: null,
    };
    expect(
      (await sandboxProcessor.charge({ ...base, rut: '111111111', password: '123' })).approved,
    ).toBe(true);
    expect(
      (await sandboxProcessor.charge({ ...base, rut: '111111111', password: '1234' })).approved,
    ).toBe(false);
    expect(
      (await sandboxProcessor.charge({ ...base, rut: '123456785', password: '123' })).approved,
    ).toBe(false);
  });
});

describe('RUT', () => {
  it('normalises the accepted spellings and checks the mod-11 digit', () => {
    for (const text of ['11.111.111-1', '11111111-1', '111111111', ' 11111111 1 '])
      expect(normaliseRut(text)).toBe('111111111');
    expect(normaliseRut('12.345.678-5')).toBe('123456785');
    expect(normaliseRut('10.000.013-k')).toBe('10000013K');
    for (const bad of ['11.111.111-2', '', 'abc', '1-']) expect(normaliseRut(bad)).toBeNull();
    expect(formatRut('111111111')).toBe('11.111.111-1');
  });
});

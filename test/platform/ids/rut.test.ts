import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isValidRut, parseRut, rutCheckDigit } from '../../../src/platform/ids/rut.ts';

describe('RUT check digit', () => {
  it('accepts the reference samples with and without dots and dash', () => {
    for (const rut of [
      '111111111',
      '11.111.111-1',
      '11111111-1',
      '261009617',
      '26.100.961-7',
      '1-9',
    ])
      expect(isValidRut(rut)).toBe(true);
    expect(parseRut('11.111.111-1')).toEqual({ body: '11111111', checkDigit: '1' });
  });

  it('accepts K in either case', () => {
    const body = ['10000013', '1000005', '20000005'].find((b) => rutCheckDigit(b) === 'K');
    expect(body).toBeDefined();
    expect(isValidRut(`${body}-k`)).toBe(true);
    expect(isValidRut(`${body}K`)).toBe(true);
  });

  it('refuses a wrong check digit, bad grouping and junk', () => {
    for (const rut of [
      '11.111.111-2',
      '111111112',
      '1.1111111-1',
      '11.111.11-1',
      '',
      '-1',
      'abc',
      '12345678901-1',
      '0-0',
    ]) {
      expect(isValidRut(rut)).toBe(false);
    }
  });

  it('exactly one check digit is right for every number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99_999_999 }), (n) => {
        const body = String(n);
        const digits = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'K'];
        expect(digits.filter((d) => isValidRut(`${body}-${d}`))).toEqual([rutCheckDigit(body)]);
      }),
      { numRuns: 300 },
    );
  });
});

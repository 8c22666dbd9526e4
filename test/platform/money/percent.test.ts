import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatBps } from '../../../src/platform/money/percent.ts';
import { percentAt } from '../../../src/platform/http/percent-at.ts';
import { parseJsonBody } from '../../../src/platform/http/json-body.ts';
import type { FastifyRequest } from 'fastify';

/** `{"p": <literal>}` through the body parser (which notes number texts), read by percentAt. */
function read(literal: string, zeroAllowed = true) {
  let body: Record<string, unknown> = {};
  parseJsonBody({} as FastifyRequest, `{"p":${literal}}`, (error, value) => {
    if (error) throw error;
    body = value as Record<string, unknown>;
  });
  const got = percentAt(body, 'p', { lengthMax: 6, zeroAllowed });
  return got.ok ? got.bps : got.problem;
}

describe('percentAt and formatBps', () => {
  it('reads strings and numbers exactly into basis points', () => {
    const cases: Array<[string, number]> = [
      ['"80"', 8000],
      ['"80.5"', 8050],
      ['"80.50"', 8050],
      ['80', 8000],
      ['80.5', 8050],
      ['80.500', 8050],
      ['"20.00"', 2000],
      ['"0"', 0],
      ['0', 0],
      ['"100"', 10000],
      ['"100.00"', 10000],
      ['"0.01"', 1],
      ['33.33', 3333],
      ['" 7.1 "', 710],
      ['1e1', 1000],
      ['25e-1', 250],
      ['1e-2', 1],
      ['1E2', 10000],
    ];
    for (const [literal, bps] of cases) expect(read(literal), literal).toBe(bps);
  });

  it('refuses more than two decimals, string exponents, signs, over 100 and non-numbers', () => {
    for (const literal of [
      '"80.505"',
      '33.333',
      '1e-7',
      '"1e2"',
      '"-5"',
      '-5',
      '"100.01"',
      '101',
      '1e3',
      '"abc"',
      '".5"',
      '"5."',
      'true',
      '[]',
      '{}',
      '1e400',
      '1e-400',
    ]) {
      expect(read(literal), literal).toBe('invalid');
    }
    for (const literal of ['null', '""', '"  "']) expect(read(literal), literal).toBe('is empty');
    for (const literal of ['33.32999999999999999', '"33.3333"', '3.333e1'])
      expect(read(literal), literal).toBe('too long');
    expect(read('0', false)).toBe('invalid');
    expect(read('-0', true)).toBe(0);
  });

  it('renders two decimals', () => {
    expect(formatBps(2000)).toBe('20.00');
    expect(formatBps(8050)).toBe('80.50');
    expect(formatBps(1)).toBe('0.01');
    expect(formatBps(10000)).toBe('100.00');
    expect(() => formatBps(-1)).toThrow(RangeError);
  });

  it('round-trips every basis-point value through its text and its number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10000 }), (bps) => {
        expect(read(JSON.stringify(formatBps(bps)))).toBe(bps);
        expect(read(String(bps / 100))).toBe(bps);
      }),
      { numRuns: 1000 },
    );
  });
});

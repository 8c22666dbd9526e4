import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatBps, parsePercentBps } from '../../../src/platform/money/percent.ts';

describe('parsePercentBps and formatBps', () => {
  it('reads text and numbers exactly into basis points', () => {
    const cases: Array<[unknown, number]> = [
      ['80', 8000],
      ['80.5', 8050],
      ['80.50', 8050],
      [80, 8000],
      [80.5, 8050],
      ['20.00', 2000],
      ['0', 0],
      [0, 0],
      ['100', 10000],
      ['100.00', 10000],
      ['0.01', 1],
      [33.33, 3333],
      [' 7.1 ', 710],
    ];
    for (const [input, bps] of cases) expect(parsePercentBps(input)).toBe(bps);
  });

  it('refuses more than two decimals, exponents, signs, over 100 and non-numbers', () => {
    for (const input of [
      '80.505',
      33.333,
      1e-7,
      '1e2',
      '-5',
      -5,
      '100.01',
      101,
      '',
      'abc',
      '.5',
      '5.',
      null,
      true,
      [],
      {},
      Number.NaN,
      Infinity,
    ]) {
      expect(parsePercentBps(input)).toBeNull();
    }
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
        expect(parsePercentBps(formatBps(bps))).toBe(bps);
        expect(parsePercentBps(bps / 100)).toBe(bps);
      }),
      { numRuns: 1000 },
    );
  });
});

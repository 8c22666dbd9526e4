import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { retryDelayMs } from '../../../src/platform/notifications/schedule.ts';
import { limits, notificationAttemptsMax as attemptsMax } from '../../../src/limits/index.ts';

const { retryDelaysMs, retryJitterFraction: jitterFraction } = limits;

describe('retry schedule (supplement §5.3)', () => {
  it('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, then nothing', () => {
    expect(retryDelaysMs.map((ms) => ms / 1000)).toEqual([
      5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400,
    ]);
    expect(attemptsMax).toBe(10);
    expect(retryDelayMs(10, 0.5)).toBeNull();
    expect(retryDelayMs(9, 0.5)).toBe(86_400_000);
  });

  it('keeps every jittered delay within 10 % of its base and in schedule order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, random) => {
          const base = retryDelaysMs[attempt - 1]!;
          const delay = retryDelayMs(attempt, random)!;
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - jitterFraction)));
          expect(delay).toBeLessThanOrEqual(Math.ceil(base * (1 + jitterFraction)));
        },
      ),
    );
  });

  it('refuses attempt numbers below 1 and randoms outside [0, 1)', () => {
    expect(() => retryDelayMs(0, 0.5)).toThrow();
    expect(() => retryDelayMs(1, 1)).toThrow();
  });
});

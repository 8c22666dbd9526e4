import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  splitByBasisPoints,
  takeInProportion,
  type Share,
} from '../../../src/platform/money/split.ts';
import { bpsPerWhole } from '../../../src/platform/money/percent.ts';

/** 1..12 shares of arbitrary basis points that add up to exactly 10000 (zeros included). */
const sharesArb: fc.Arbitrary<Share[]> = fc
  .array(fc.integer({ min: 0, max: bpsPerWhole }), { minLength: 0, maxLength: 11 })
  .map((cuts) => {
    const points = [0, ...cuts.sort((a, b) => a - b), bpsPerWhole];
    return points.slice(1).map((p, i) => ({ id: `s${i}`, bps: p - points[i]! }));
  });
const totalArb = fc.bigInt({ min: 0n, max: 99_999_999_999_999n });

describe('splitByBasisPoints', () => {
  it('parts always add up to the whole, never negative, within one unit of the exact share', () => {
    fc.assert(
      fc.property(totalArb, sharesArb, (total, shares) => {
        const parts = splitByBasisPoints(total, shares);
        expect(parts.map((p) => p.id)).toEqual(shares.map((s) => s.id));
        expect(parts.reduce((a, p) => a + p.amountMinor, 0n)).toBe(total);
        for (const [i, p] of parts.entries()) {
          expect(p.amountMinor >= 0n).toBe(true);
          const exactTimesWhole = total * BigInt(shares[i]!.bps);
          const diff = p.amountMinor * BigInt(bpsPerWhole) - exactTimesWhole;
          expect(diff > -BigInt(bpsPerWhole) && diff < BigInt(bpsPerWhole)).toBe(true);
          if (shares[i]!.bps === 0) expect(p.amountMinor).toBe(0n);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is deterministic: the same input gives the same parts', () => {
    fc.assert(
      fc.property(totalArb, sharesArb, (total, shares) => {
        expect(splitByBasisPoints(total, shares)).toEqual(
          splitByBasisPoints(
            total,
            shares.map((s) => ({ ...s })),
          ),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('is exact when every share divides evenly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 9_999_999_999n }), sharesArb, (units, shares) => {
        const total = units * BigInt(bpsPerWhole);
        for (const [i, p] of splitByBasisPoints(total, shares).entries())
          expect(p.amountMinor).toBe(units * BigInt(shares[i]!.bps));
      }),
      { numRuns: 200 },
    );
  });

  it('gives leftover units to the largest dropped fractions, ties to the first listed', () => {
    expect(
      splitByBasisPoints(100n, [
        { id: 'a', bps: 3333 },
        { id: 'b', bps: 3333 },
        { id: 'c', bps: 3334 },
      ]),
    ).toEqual([
      { id: 'a', amountMinor: 33n },
      { id: 'b', amountMinor: 33n },
      { id: 'c', amountMinor: 34n },
    ]);
    expect(
      splitByBasisPoints(1n, [
        { id: 'a', bps: 5000 },
        { id: 'b', bps: 5000 },
      ]),
    ).toEqual([
      { id: 'a', amountMinor: 1n },
      { id: 'b', amountMinor: 0n },
    ]);
    expect(
      splitByBasisPoints(25000n, [
        { id: 'merchant', bps: 2000 },
        { id: 'client', bps: 8000 },
      ]),
    ).toEqual([
      { id: 'merchant', amountMinor: 5000n },
      { id: 'client', amountMinor: 20000n },
    ]);
    expect(
      splitByBasisPoints(10n, [
        { id: 'a', bps: 3300 },
        { id: 'b', bps: 3300 },
        { id: 'c', bps: 3400 },
      ]),
    ).toEqual([
      { id: 'a', amountMinor: 3n },
      { id: 'b', amountMinor: 3n },
      { id: 'c', amountMinor: 4n },
    ]);
  });

  it('refuses shares that do not add up to 100% and negative totals', () => {
    expect(() => splitByBasisPoints(100n, [{ id: 'a', bps: 5000 }])).toThrow(/100%/);
    expect(() => splitByBasisPoints(-1n, [{ id: 'a', bps: 10000 }])).toThrow(/non-negative/);
    expect(() => splitByBasisPoints(1n, [])).toThrow(/shares/);
  });
});

describe('takeInProportion (refunds of split sales, decision 116)', () => {
  const partsArb = fc.array(fc.bigInt({ min: 0n, max: 9_999_999n }), {
    minLength: 1,
    maxLength: 12,
  });
  it('any sequence of takes that ends with the whole takes each part exactly, never more than a part holds', () => {
    fc.assert(
      fc.property(
        partsArb,
        fc.array(fc.integer({ min: 1, max: 100 }), { maxLength: 20 }),
        (parts, weights) => {
          let left = [...parts];
          const total = parts.reduce((a, b) => a + b, 0n);
          const steps = [...weights.map((w) => (total * BigInt(w)) / 2000n), total];
          for (const step of steps) {
            const leftTotal = left.reduce((a, b) => a + b, 0n);
            const take = step < leftTotal ? step : leftTotal;
            const taken = takeInProportion(take, left);
            expect(taken.reduce((a, b) => a + b, 0n)).toBe(take);
            for (const [i, x] of taken.entries()) expect(x >= 0n && x <= left[i]!).toBe(true);
            left = left.map((l, i) => l - taken[i]!);
          }
          expect(left.every((l) => l === 0n)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("gives a tie's leftover unit to the part listed first (the merchant)", () => {
    expect(takeInProportion(1n, [5n, 5n])).toEqual([1n, 0n]);
    expect(takeInProportion(5n, [2000n, 4550n, 3450n])).toEqual([1n, 2n, 2n]);
  });
});

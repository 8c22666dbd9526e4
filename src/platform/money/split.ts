// Splitting an amount by percentages so the parts add up to the whole exactly (largest remainder method).
// Every marketplace payment and event sale is divided with this one function.
import assert from 'node:assert/strict';
import { bpsPerWhole } from './percent.ts';
import { limits } from '../../limits/index.ts';

export interface Share<Id extends string = string> {
  readonly id: Id;
  /** Basis points of the whole; the shares of one split add up to exactly 10000. */
  readonly bps: number;
}

export interface Part<Id extends string = string> {
  readonly id: Id;
  readonly amountMinor: bigint;
}

/** Indexes by dropped fraction, largest first; equal fractions keep their listed order. */
function largestFirst(remainders: readonly bigint[]): number[] {
  return remainders
    .map((_, i) => i)
    .sort((a, b) => {
      const ra = remainders[a]!;
      const rb = remainders[b]!;
      return ra === rb ? a - b : ra > rb ? -1 : 1;
    });
}

/**
 * Divides totalMinor among the shares in proportion to their basis points. Each part is the exact proportion
 * rounded down, and the minor units left over go one each to the shares with the largest dropped fractions;
 * equal fractions go to the share listed first. So the parts sum to the total, none is negative, each is within
 * one minor unit of its exact proportion, a zero share gets zero, and the same input always gives the same parts.
 */
export function splitByBasisPoints<Id extends string>(
  totalMinor: bigint,
  shares: readonly Share<Id>[],
): Part<Id>[] {
  assert.ok(totalMinor >= 0n, 'a split divides a non-negative amount');
  assert.ok(
    shares.length >= 1 && shares.length <= limits.sharesPerSplitMax,
    `a split has 1..${limits.sharesPerSplitMax} shares`,
  );
  let bpsTotal = 0;
  for (const s of shares) {
    assert.ok(
      Number.isSafeInteger(s.bps) && s.bps >= 0 && s.bps <= bpsPerWhole,
      'share bps in 0..10000',
    );
    bpsTotal += s.bps;
  }
  assert.equal(bpsTotal, bpsPerWhole, 'shares add up to 100%');
  const whole = BigInt(bpsPerWhole);
  const floors = shares.map((s) => (totalMinor * BigInt(s.bps)) / whole);
  const remainders = shares.map((s) => (totalMinor * BigInt(s.bps)) % whole);
  let leftover = totalMinor - floors.reduce((a, b) => a + b, 0n);
  // leftover < number of shares, because each dropped fraction is below one minor unit.
  assert.ok(leftover >= 0n && leftover < BigInt(shares.length));
  const amounts = [...floors];
  for (const i of largestFirst(remainders)) {
    if (leftover === 0n) break;
    if (remainders[i] === 0n) break;
    amounts[i] = amounts[i]! + 1n;
    leftover -= 1n;
  }
  assert.equal(leftover, 0n, 'every leftover unit went to a share with a dropped fraction');
  return shares.map((s, i) => ({ id: s.id, amountMinor: amounts[i]! }));
}

/**
 * Takes `takeMinor` back from parts that still hold `remainingMinor[i]` each (a refund reversing a split, decision
 * 116): in proportion to what each still holds, rounded down, the minor units left over one each to the largest
 * dropped fractions, equal fractions to the part listed first. No part gives more than it holds, and taking
 * everything that is left takes each part exactly; so any sequence of takes that ends with the whole gives back
 * each part to the unit.
 */
export function takeInProportion(takeMinor: bigint, remainingMinor: readonly bigint[]): bigint[] {
  const total = remainingMinor.reduce((a, b) => a + b, 0n);
  assert.ok(
    takeMinor >= 0n && takeMinor <= total && remainingMinor.every((r) => r >= 0n),
    'a take within what is left',
  );
  if (takeMinor === 0n) return remainingMinor.map(() => 0n);
  const floors = remainingMinor.map((r) => (takeMinor * r) / total);
  const remainders = remainingMinor.map((r) => (takeMinor * r) % total);
  let leftover = takeMinor - floors.reduce((a, b) => a + b, 0n);
  const amounts = [...floors];
  for (const i of largestFirst(remainders)) {
    if (leftover === 0n) break;
    amounts[i] = amounts[i]! + 1n;
    leftover -= 1n;
  }
  assert.equal(leftover, 0n);
  return amounts;
}

/** The smaller of two amounts. */
export function atMost(amountMinor: bigint, capMinor: bigint): bigint {
  return amountMinor < capMinor ? amountMinor : capMinor;
}

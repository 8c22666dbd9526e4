// Splitting an amount by percentages so the parts add up to the whole exactly (largest remainder method).
// Every marketplace payment and event sale is divided with this one function.
import assert from 'node:assert/strict';
import { bpsPerWhole } from './percent.ts';
import { limits } from '../../limits.ts';

export interface Share<Id extends string = string> {
  readonly id: Id;
  /** Basis points of the whole; the shares of one split add up to exactly 10000. */
  readonly bps: number;
}

export interface Part<Id extends string = string> {
  readonly id: Id;
  readonly amountMinor: bigint;
}

/**
 * Divides totalMinor among the shares in proportion to their basis points. Each part is the exact proportion
 * rounded down, and the minor units left over go one each to the shares with the largest dropped fractions;
 * equal fractions go to the share listed first. So the parts sum to the total, none is negative, each is within
 * one minor unit of its exact proportion, a zero share gets zero, and the same input always gives the same parts.
 */
export function splitByBasisPoints<Id extends string>(totalMinor: bigint, shares: readonly Share<Id>[]): Part<Id>[] {
  assert.ok(totalMinor >= 0n, 'a split divides a non-negative amount');
  assert.ok(shares.length >= 1 && shares.length <= limits.sharesPerSplitMax, `a split has 1..${limits.sharesPerSplitMax} shares`);
  let bpsTotal = 0;
  for (const s of shares) {
    assert.ok(Number.isSafeInteger(s.bps) && s.bps >= 0 && s.bps <= bpsPerWhole, 'share bps in 0..10000');
    bpsTotal += s.bps;
  }
  assert.equal(bpsTotal, bpsPerWhole, 'shares add up to 100%');
  const whole = BigInt(bpsPerWhole);
  const floors = shares.map((s) => (totalMinor * BigInt(s.bps)) / whole);
  const remainders = shares.map((s) => (totalMinor * BigInt(s.bps)) % whole);
  let leftover = totalMinor - floors.reduce((a, b) => a + b, 0n);
  // leftover < number of shares, because each dropped fraction is below one minor unit.
  assert.ok(leftover >= 0n && leftover < BigInt(shares.length));
  const order = shares.map((_, i) => i).sort((a, b) => {
    const ra = remainders[a]!;
    const rb = remainders[b]!;
    return ra === rb ? a - b : ra > rb ? -1 : 1;
  });
  const amounts = [...floors];
  for (const i of order) {
    if (leftover === 0n) break;
    if (remainders[i] === 0n) break;
    amounts[i] = amounts[i]! + 1n;
    leftover -= 1n;
  }
  assert.equal(leftover, 0n, 'every leftover unit went to a share with a dropped fraction');
  return shares.map((s, i) => ({ id: s.id, amountMinor: amounts[i]! }));
}

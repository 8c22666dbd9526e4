// The fee a refund gives back (decision 110), reckoned from the refunds that stand (decision 975): under any order of
// refunds and refusals, no refund gives back less than nothing or more than its amount or the fee left, and the
// refunds standing when the sale is refunded whole have given back exactly its fee.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { feeBackMinor } from '../../../src/modules/refunds/fee-back.ts';

interface Refund {
  readonly amountMinor: bigint;
  readonly feeBackMinor: bigint;
}

/** A sale, then steps: a refund of a share of what is left, or the refusal of one standing refund. */
const saleArb = fc.record({
  grossMinor: fc.bigInt({ min: 1n, max: 10_000_000n }),
  feePerMille: fc.integer({ min: 0, max: 1_000 }),
  steps: fc.array(
    fc.oneof(
      fc.record({ refund: fc.integer({ min: 1, max: 1_000 }) }),
      fc.record({ refuse: fc.nat() }),
    ),
    { maxLength: 30 },
  ),
});

describe('feeBackMinor', () => {
  it('keeps each refund within its bounds and gives back exactly the fee once the standing refunds are whole', () => {
    fc.assert(
      fc.property(saleArb, ({ grossMinor, feePerMille, steps }) => {
        const feeMinor = (grossMinor * BigInt(feePerMille)) / 1_000n;
        let standing: Refund[] = [];
        const refund = (amountMinor: bigint) => {
          const refundedBeforeMinor = standing.reduce((s, r) => s + r.amountMinor, 0n);
          const feeBackBeforeMinor = standing.reduce((s, r) => s + r.feeBackMinor, 0n);
          const back = feeBackMinor({
            grossMinor,
            feeMinor,
            refundedBeforeMinor,
            feeBackBeforeMinor,
            amountMinor,
          });
          expect(back >= 0n && back <= amountMinor).toBe(true);
          expect(feeBackBeforeMinor + back <= feeMinor).toBe(true);
          standing = [...standing, { amountMinor, feeBackMinor: back }];
        };
        for (const step of steps) {
          const leftMinor = grossMinor - standing.reduce((s, r) => s + r.amountMinor, 0n);
          if ('refund' in step && leftMinor > 0n) {
            const share = (leftMinor * BigInt(step.refund)) / 1_000n;
            refund(share > 0n ? share : 1n);
          } else if ('refuse' in step && standing.length > 0) {
            standing = standing.filter((_, i) => i !== step.refuse % standing.length);
          }
        }
        const leftMinor = grossMinor - standing.reduce((s, r) => s + r.amountMinor, 0n);
        if (leftMinor > 0n) refund(leftMinor);
        expect(standing.reduce((s, r) => s + r.feeBackMinor, 0n)).toBe(feeMinor);
      }),
      { numRuns: 500 },
    );
  });
});

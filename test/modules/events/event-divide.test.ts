import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { divideEventSale } from '../../../src/modules/events/divide.ts';

/** 0..50 beneficiaries whose percents add up to at most 100, each above 0. */
const beneficiariesArb = fc
  .array(fc.integer({ min: 1, max: 10_000 }), { maxLength: 50 })
  .map((bpsList) => {
    let left = 10_000;
    const out: { id: string; bps: number }[] = [];
    for (const [i, bps] of bpsList.entries()) {
      const take = Math.min(bps, left);
      if (take === 0) break;
      out.push({ id: `b${i}`, bps: take });
      left -= take;
    }
    return out;
  });

describe('divideEventSale', () => {
  it('service amount, beneficiaries and merchant add up to the net, none negative, the same every time', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 99_999_999_999_999n }),
        fc.bigInt({ min: 0n, max: 9_999_999n }),
        beneficiariesArb,
        (net, service, people) => {
          const d = divideEventSale(net, service, people);
          expect(d.parts.map((p) => p.beneficiaryId)).toEqual(people.map((p) => p.id));
          expect(d.parts.every((p) => p.amountMinor >= 0n)).toBe(true);
          expect(d.affiliateMinor).toBe(d.parts.reduce((a, p) => a + p.amountMinor, 0n));
          expect(d.affiliateMinor + d.merchantMinor).toBe(net);
          expect(d.merchantMinor >= d.serviceMinor).toBe(true);
          expect(d.serviceMinor).toBe(service < net ? service : net);
          expect(divideEventSale(net, service, people)).toEqual(d);
          const covered = people.reduce((a, p) => a + p.bps, 0);
          if (covered === 10_000) expect(d.merchantMinor).toBe(d.serviceMinor);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('matches a hand-worked sale: 9701 net, 100 service, 60/30 beneficiaries', () => {
    expect(
      divideEventSale(9701n, 100n, [
        { id: 'a', bps: 6000 },
        { id: 'b', bps: 3000 },
      ]),
    ).toEqual({
      serviceMinor: 100n,
      parts: [
        { beneficiaryId: 'a', amountMinor: 5761n },
        { beneficiaryId: 'b', amountMinor: 2880n },
      ],
      affiliateMinor: 8641n,
      merchantMinor: 1060n,
    });
    expect(divideEventSale(48n, 100n, [{ id: 'a', bps: 10_000 }])).toMatchObject({
      serviceMinor: 48n,
      affiliateMinor: 0n,
      merchantMinor: 48n,
    });
    expect(divideEventSale(1000n, 0n, [])).toEqual({
      serviceMinor: 0n,
      parts: [],
      affiliateMinor: 0n,
      merchantMinor: 1000n,
    });
  });
});

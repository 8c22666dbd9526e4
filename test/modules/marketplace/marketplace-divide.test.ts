import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { divideMarketplaceNet } from '../../../src/modules/marketplace/divide.ts';

/** A merchant share (0..100 %) and 1..25 clients above 0 that complete it to exactly 100 %. */
const membershipArb = fc.integer({ min: 1, max: 25 }).chain((n) =>
  fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: n, maxLength: n }).chain((weights) => {
    const clients = weights.length;
    return fc.integer({ min: 0, max: 10_000 - clients }).map((merchantBps) => {
      const left = 10_000 - merchantBps;
      const total = weights.reduce((a, w) => a + w, 0);
      const bps = weights.map((w) => 1 + Math.floor(((left - clients) * w) / total));
      bps[0]! += left - bps.reduce((a, b) => a + b, 0);
      return { merchantBps, clients: bps.map((b, i) => ({ clientId: `ma${i}`, bps: b })) };
    });
  }),
);

describe('divideMarketplaceNet', () => {
  it('the merchant and the clients get exactly the net, none negative, deterministically', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 99_999_999_999_999n }), membershipArb, (net, m) => {
        expect(m.merchantBps + m.clients.reduce((a, c) => a + c.bps, 0)).toBe(10_000);
        const d = divideMarketplaceNet(net, m.merchantBps, m.clients);
        expect(d.merchantMinor + d.parts.reduce((a, p) => a + p.amountMinor, 0n)).toBe(net);
        expect(d.merchantMinor >= 0n && d.parts.every((p) => p.amountMinor >= 0n)).toBe(true);
        expect(d.parts.map((p) => p.clientId)).toEqual(m.clients.map((c) => c.clientId));
        expect(divideMarketplaceNet(net, m.merchantBps, m.clients)).toEqual(d);
      }),
      { numRuns: 300 },
    );
  });

  it('reproduces the reference split: 20 % merchant, 80 % client', () => {
    expect(
      divideMarketplaceNet(25_000n, 2000, [{ clientId: 'ma9fd16221a9645b0036', bps: 8000 }]),
    ).toEqual({
      merchantMinor: 5000n,
      parts: [{ clientId: 'ma9fd16221a9645b0036', amountMinor: 20_000n }],
    });
  });
});

// The client's Web Crypto signer (packages/client/src/sign.ts) and the server's node:crypto verifier
// (src/platform/auth/sign.ts) are separate code: they must agree on every path and parameter set.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalString as clientCanonical,
  computeSign as clientSign,
} from '../../packages/client/src/sign.ts';
import {
  canonicalString as serverCanonical,
  computeSign as serverSign,
  verifySign,
} from '../../src/platform/auth/sign.ts';

const scalar = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant({ nested: 1 }),
  fc.constant([1, 2]),
);
const params = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), scalar, { maxKeys: 6 });
const path = fc.string({ unit: 'binary', maxLength: 40 }).map((rest) => `/api/${rest}`);

describe('client signing', () => {
  it('matches the worked example of docs/authentication.md (supplement §2.4)', async () => {
    const body = {
      email: 'johndoe@example.com',
      name: 'John Doe',
      phone: '923122312',
      address: 'Moneda 101',
      country: 'Chile',
      region: 'Metropolitana',
      city: 'Santiago',
      postal_code: '850000',
      additional_parameters: { parameter_1: 'example', parameter_2: 'example 2' },
    };
    expect(clientCanonical('/api/suclient', body)).toBe(
      '%2Fapi%2Fsuclient&address=Moneda+101&city=Santiago&country=Chile&email=johndoe%40example.com&name=John+Doe&phone=923122312&postal_code=850000&region=Metropolitana',
    );
    expect(await clientSign('fe551abcef62fcf002dc598922e68f0a', '/api/suclient', body)).toBe(
      'c9c86202b1246f6ebeb080d08b3b99a22d36d0e8cffb7fd4e65af0fea4dd12bb',
    );
  });

  it("produces the server's canonical string and a signature the server accepts", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }),
        path,
        params,
        async (token, p, ps) => {
          expect(clientCanonical(p, ps)).toBe(serverCanonical(p, ps));
          const sign = await clientSign(token, p, ps);
          expect(sign).toBe(serverSign(token, p, ps));
          expect(verifySign(token, p, ps, sign)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

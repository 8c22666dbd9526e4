// The typed client always sends Cobro-Signature (decision 140): its Web Crypto signer agrees with the server's, and
// every call of an account that requires strict signing goes through, nested bodies included.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeCobroSignature as clientSignature } from '../../packages/client/src/sign.ts';
import {
  checkCobroSignature,
  computeCobroSignature as serverSignature,
} from '../../src/platform/auth/cobro-signature.ts';
import { setStrictSigning } from '../../src/modules/accounts/strict-signing.ts';
import type { TestAccount } from '../support/app.ts';
import { startLiveApp, type LiveApp } from './live-app.ts';

let live: LiveApp;
let strict: TestAccount;
beforeAll(async () => {
  live = await startLiveApp();
  strict = await live.t.createAccount('Strict client');
  const set = await setStrictSigning(live.t.ctx, strict.id, true);
  expect(set.ok).toBe(true);
});
afterAll(async () => {
  await live.close();
});

describe('client Cobro-Signature', () => {
  it("matches the server's for any method, path and body", async () => {
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE');
    const path = fc.string({ maxLength: 30 }).map((rest) => `/api/${encodeURIComponent(rest)}`);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.nat({ max: 4_000_000_000 }),
        method,
        path,
        fc.string({ maxLength: 60 }),
        async (token, t, m, p, body) => {
          const header = await clientSignature(token, t, m, p, body);
          expect(header).toBe(serverSignature(token, t, m, p, body));
          expect(
            checkCobroSignature(
              token,
              header,
              { method: m, rawPath: p, rawBody: body },
              new Date(t * 1000),
            ),
          ).toBe('valid');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('lets every call of a strict account through, and a client with the wrong key is refused', async () => {
    const cobro = live.clientFor(strict);
    expect((await cobro.getAccount()).httpStatus).toBe(200);
    const created = await cobro.createMarketplaceClient({
      email: 'c@example.com',
      name: 'Client',
      phone: '923122312',
      bank: { sbif: '0001', type: '1', num: '123', rut: '111111111' },
    });
    expect(created.body).toMatchObject({ status: 'register' });
    const id = (created.body as { id: string }).id;
    const updated = await cobro.updateMarketplaceClient(
      id,
      { bank: { num: '456' } },
      { idempotencyKey: 'strict-1' },
    );
    expect(updated.body).toMatchObject({ bank: { num: '456' } });
    expect((await cobro.deleteMarketplaceClient(id)).body).toMatchObject({ status: 'suspended' });
    // A clock more than the window away is refused with its own message.
    const late = live.clientFor(strict, {
      now: () => new Date(live.t.clock.now().getTime() - 10 * 60_000),
    });
    expect((await late.getTransaction('trx_none')).body).toMatchObject({
      message_error: expect.stringMatching(/^Cobro-Signature timestamp/),
    });
    const wrongKey = live.clientFor(strict, { privateToken: 'f'.repeat(32) });
    expect((await wrongKey.getTransaction('trx_none')).body).toMatchObject({
      message_error: 'invalid Cobro-Signature',
    });
  });
});

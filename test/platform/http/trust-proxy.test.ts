// TRUST_PROXY (docs/going-live.md): behind a reverse proxy the payer's address comes from X-Forwarded-For, but
// only when the connection comes from a proxy named there; unset, the header is ignored (anyone could send it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/platform/process/config.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { approvedVisa, createTransaction, linkParams } from '../../modules/transactions/helpers.ts';

let behind: TestApp;
let direct: TestApp;
beforeAll(async () => {
  behind = await startTestApp({ env: { TRUST_PROXY: '127.0.0.1, ::1' } });
  // Another configuration on the same database (`sharing`): the payer's address is each app's reading of the request.
  direct = await startTestApp({ sharing: behind });
});
afterAll(async () => {
  await direct.close();
  await behind.close();
});

/** Pays by card through the checkout with `X-Forwarded-For`, from 127.0.0.1 (app.inject's address); the attempt's payer_ip. */
async function payerIpOf(t: TestApp): Promise<string | null> {
  const account = await t.createAccount();
  const created = await createTransaction(t, account);
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': '203.0.113.9',
    },
    payload: new URLSearchParams({
      ...linkParams(created.url),
      method: '1',
      ...approvedVisa,
    }).toString(),
  });
  expect(res.body).toContain('Pago exitoso');
  const attempt = await t.ctx.db
    .selectFrom('payment_attempts')
    .select('payer_ip')
    .where('transaction_id', '=', created.id)
    .executeTakeFirstOrThrow();
  return attempt.payer_ip;
}

describe('TRUST_PROXY', () => {
  it("takes the payer's address from X-Forwarded-For only from a named proxy", async () => {
    expect(await payerIpOf(behind)).toBe('203.0.113.9');
    expect(await payerIpOf(direct)).toBe('127.0.0.1');
  });

  it('accepts addresses and networks, and names a bad entry', () => {
    const ok = loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1, fd00::/8' });
    expect(ok.ok && ok.config.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8']);
    const unset = loadConfig({});
    expect(unset.ok && unset.config.trustProxy).toBeNull();
    for (const bad of ['true', 'proxy.internal', '10.0.0.0/33', '1']) {
      const r = loadConfig({ TRUST_PROXY: bad });
      expect(r.ok ? [] : r.errors).toEqual([
        `TRUST_PROXY entries must be IP addresses or networks like 10.0.0.0/8, got "${bad}"`,
      ]);
    }
  });
});

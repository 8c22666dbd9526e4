import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { rotateAccount } from '../../../src/modules/accounts/service.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount('Auth merchant');
});
afterAll(async () => {
  await t.close();
});

const get = (headers: Record<string, string>, url = '/api/account') =>
  t.app.inject({ method: 'GET', url, headers: { accept: 'application/json', ...headers } });

describe('Bearer token and Sign (supplement §2)', () => {
  it('refuses a missing token with the seed 401 body', async () => {
    const res = await get({});
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      status: 'failed',
      type: 'Unauthorized',
      message_error: 'waiting token public',
    });
  });

  it('refuses an unknown token', async () => {
    const res = await get({ authorization: 'Bearer 00000000000000000000000000000000' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      status: 'failed',
      type: 'Unauthorized',
      message_error: 'invalid token',
    });
    expect((await get({ authorization: 'Basic abc' })).json().message_error).toBe('invalid token');
  });

  it('asks for Sign on a signed route and refuses a wrong one', async () => {
    const auth = { authorization: `Bearer ${account.publicToken}` };
    const missing = await get(auth);
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({
      status: 'failed',
      type: 'Unauthorized',
      message_error: 'waiting sign',
    });
    const wrong = await get({ ...auth, sign: computeSign('f'.repeat(32), '/api/account', {}) });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().message_error).toBe('invalid sign');
  });

  it('accepts a correct signature and refuses it with one changed byte', async () => {
    const auth = { authorization: `Bearer ${account.publicToken}` };
    const sign = computeSign(account.privateToken, '/api/account', {});
    const ok = await get({ ...auth, sign });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({
      status: 'success',
      id: account.id,
      name: 'Auth merchant',
      mode: 'sandbox',
    });
    const changed = sign.slice(0, -1) + (sign.endsWith('0') ? '1' : '0');
    expect((await get({ ...auth, sign: changed })).statusCode).toBe(401);
    expect((await get({ ...auth, sign: sign.toUpperCase() })).statusCode).toBe(200);
  });

  it('signs GET query parameters', async () => {
    const auth = { authorization: `Bearer ${account.publicToken}` };
    const sign = computeSign(account.privateToken, '/api/account', { page: '2', per_page: '10' });
    expect((await get({ ...auth, sign }, '/api/account?per_page=10&page=2')).statusCode).toBe(200);
    expect((await get({ ...auth, sign }, '/api/account?per_page=11&page=2')).statusCode).toBe(401);
  });

  it('accepts a Sign over the path as sent (percent-escapes kept) as well as over the decoded path', async () => {
    const auth = { authorization: `Bearer ${account.publicToken}` };
    const email = 'pct.client@example.com';
    const created = await t.call(account, {
      method: 'POST',
      url: '/api/suclient',
      sign: true,
      body: { email, name: 'Pct Client', phone: '923122312' },
    });
    expect(created.statusCode).toBe(200);
    const sent = '/api/suclient/pct.client%40example.com';
    // A client that signs what it sends: encodeURIComponent('/api/suclient/pct.client%40example.com') has `%2540`.
    const overSent = computeSign(account.privateToken, sent, {});
    const overDecoded = computeSign(account.privateToken, `/api/suclient/${email}`, {});
    for (const sign of [overSent, overDecoded]) {
      const res = await get({ ...auth, sign }, sent);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: created.json().id, email });
    }
    // Another path's signature still fails, in either form.
    expect(
      (
        await get(
          {
            ...auth,
            sign: computeSign(account.privateToken, '/api/suclient/other%40example.com', {}),
          },
          sent,
        )
      ).json().message_error,
    ).toBe('invalid sign');
  });

  it('ignores a Sign header on routes that do not need one', async () => {
    const res = await get({ sign: 'whatever' }, '/api/banks?currency=clp');
    expect(res.statusCode).toBe(200);
  });

  it('stops old credentials at once after rotation', async () => {
    const other = await t.createAccount('Rotating merchant');
    const rotated = await rotateAccount(t.ctx, other.id, 'tokens');
    expect(rotated.ok).toBe(true);
    if (!rotated.ok) return;
    const oldAuth = {
      authorization: `Bearer ${other.publicToken}`,
      sign: computeSign(other.privateToken, '/api/account', {}),
    };
    expect((await get(oldAuth)).statusCode).toBe(401);
    const fresh = {
      authorization: `Bearer ${rotated.value.publicToken}`,
      sign: computeSign(rotated.value.privateToken, '/api/account', {}),
    };
    expect((await get(fresh)).statusCode).toBe(200);
    expect(rotated.value.webhookSecret).toBe(other.webhookSecret);
  });

  it('stores private tokens and webhook secrets encrypted, never in clear', async () => {
    const row = await t.ctx.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(account.privateToken);
    expect(JSON.stringify(row)).not.toContain(account.publicToken);
    expect(JSON.stringify(row)).not.toContain(account.webhookSecret);
  });
});

// Path ids over the seed's limits (maclient and maaffiliation 20, event 40) answer `id: too long`, however long
// they are, with or without a trailing slash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const tooLong = {
  status: 'failed',
  type: 'Unprocessable Entity',
  message_error: 'id:too long',
  errors: { id: 'too long' },
};

describe('path ids over their limit', () => {
  it.each([
    ['GET', '/api/maclient/', 21],
    ['DELETE', '/api/maaffiliation/', 21],
    ['GET', '/api/event/', 41],
    ['GET', '/api/maclient/', 500],
    ['DELETE', '/api/maclient/', 201],
    ['GET', '/api/event/', 5000],
  ] as const)('%s %s<%i characters> is a 400 id: too long', async (method, prefix, length) => {
    for (const suffix of ['', '/']) {
      const res = await t.call(merchant, {
        method,
        url: `${prefix}${'a'.repeat(length)}${suffix}`,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(tooLong);
    }
  });

  it('ids at the limit are looked up (404 when unknown)', async () => {
    const res = await t.call(merchant, { method: 'GET', url: `/api/event/${'a'.repeat(40)}/` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ type: 'Not Found', id: 'is not valid' });
  });
});

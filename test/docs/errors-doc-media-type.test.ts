// docs/errors.md: `unsupported_media_type` | 415 | "a body that is not `application/json`". A JSON body sent as
// `text/plain` (what `fetch(url, {method: 'POST', body: JSON.stringify(x)})` sends when the caller forgets the
// header) was read by Fastify's default text parser and refused as `400 body:invalid`, naming no cause (decision 895).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const body = JSON.stringify({
  email: 'pagador@example.com',
  order: '1001',
  subject: 'Primera venta',
  amount: 25000,
  currency: 'CLP',
});

describe('a body that is not JSON (docs/errors.md)', () => {
  it.each(['text/plain', 'text/plain;charset=UTF-8', 'application/xml'])(
    '%s is 415 unsupported_media_type, as the catalogue says',
    async (type) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/transaction',
        headers: { authorization: `Bearer ${account.publicToken}`, 'content-type': type },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(415);
      expect(res.json()).toEqual({
        status: 'failed',
        type: 'Unsupported Media Type',
        message_error: 'body must be application/json',
      });
    },
  );

  it('writes nothing: the same order sent as JSON afterwards is a new sale', async () => {
    const res = await t.call(account, {
      method: 'POST',
      url: '/api/transaction',
      body: JSON.parse(body),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'pending' });
  });
});

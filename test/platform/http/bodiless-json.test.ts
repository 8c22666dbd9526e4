// The seed's common headers put `Content-Type: application/json` on every request, DELETE and GET included, and
// curl or axios then send no body at all: that must reach the route, not fail as an empty JSON document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createClient } from '../../modules/marketplace/helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const seedHeaders = {
  accept: 'application/json, text/plain, */*',
  'content-type': 'application/json',
};

describe('Content-Type: application/json without a body', () => {
  it('DELETE /api/maclient/{id} suspends the client', async () => {
    const id = await createClient(t, merchant);
    const res = await t.call(merchant, {
      method: 'DELETE',
      url: `/api/maclient/${id}`,
      headers: seedHeaders,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'suspended', id });
  });

  it('DELETE /api/maaffiliation/{id} of an unknown id is a 404, not a body error', async () => {
    const res = await t.call(merchant, {
      method: 'DELETE',
      url: '/api/maaffiliation/ma000000000000000000/',
      headers: seedHeaders,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Found', id: 'is not valid' });
  });

  it('a wrong method on a known path is still a 405', async () => {
    const res = await t.call(merchant, {
      method: 'DELETE',
      url: '/api/event/abc',
      headers: seedHeaders,
    });
    expect(res.statusCode).toBe(405);
  });

  it('a POST with an empty JSON body is still a 400 naming the body', async () => {
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/maclient',
      headers: seedHeaders,
      body: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'failed', errors: { body: 'is empty' } });
  });
});

// Route schemas compile on first use (src/platform/http/lazy-schemas.ts): start-up no longer compiles them, a
// request compiles only its own, validation and serialization behave as before, and every schema of every route
// still compiles, here, so a broken one fails CI rather than a merchant's first request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { compilePendingSchemas } from '../../../src/platform/http/lazy-schemas.ts';

let t: TestApp;
let account: TestAccount;

beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('route schemas compiled on first use', () => {
  it('validates and serializes as the eager compilers did, then compiles every remaining schema cleanly', async () => {
    const refused = await t.call(account, {
      method: 'POST',
      url: '/api/transaction/',
      body: { email: 'x@example.com', order: 'o-1', subject: 's', amount: 'not a number' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ status: 'failed' });
    const created = await t.call(account, {
      method: 'POST',
      url: '/api/transaction/',
      body: { email: 'x@example.com', order: 'o-2', subject: 's', amount: '1000' },
    });
    expect(created.statusCode, created.body).toBe(200);
    // The response schema drops what it does not declare, so the serializer ran.
    expect(Object.keys(created.json()).sort()).toEqual(['id', 'status', 'url']);

    const compiled = compilePendingSchemas(t.app);
    expect(compiled).toBeGreaterThan(100);
    expect(compilePendingSchemas(t.app)).toBe(0);
  });
});

// The per-token rate limit (decision 072): 429 in the seed's envelope with Retry-After past the limit, counted per
// public token once it is known and per IP otherwise, never on health probes, and off with RATE_LIMIT_PER_MINUTE=0.
import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestApp,
  type TestAccount,
  type TestApp,
  type TestAppOptions,
} from '../../support/app.ts';

// Each test's app has its own configuration and its own limiter (kept in the app's memory, not the database); they
// share one database (`sharing`), as a clone each cost about 0.5 CPU s and the limit never reads the database.
let owner: TestApp;
beforeAll(async () => {
  owner = await startTestApp();
});
afterAll(async () => {
  await owner.close();
});
let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});
const appWith = (options: TestAppOptions = {}) => startTestApp({ ...options, sharing: owner });

const perMinute = 3;

function account(app: TestApp, a: TestAccount) {
  return app.call(a, { method: 'GET', url: '/api/account', sign: true });
}

function expectLimited(res: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): any;
}): void {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toEqual({
    status: 'failed',
    type: 'Too Many Requests',
    message_error: expect.stringMatching(/^too many requests/),
  });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  expect(res.headers['x-request-id']).toBeTypeOf('string');
}

describe('rate limit', () => {
  it('answers 429 with Retry-After past the limit of one token, while another token goes on', async () => {
    t = await appWith({ env: { RATE_LIMIT_PER_MINUTE: String(perMinute) } });
    const a = await t.createAccount('A');
    const b = await t.createAccount('B');
    // A token's first request counts per IP (it is not yet known to be valid); the next ones per token.
    const first = await account(t, a);
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-ratelimit-remaining']).toBeUndefined();
    for (let i = 0; i < perMinute; i++) expect((await account(t, a)).statusCode).toBe(200);
    expectLimited(await account(t, a));
    // Other methods and routes of the same token share its allowance.
    expectLimited(
      await t.call(a, {
        method: 'POST',
        url: '/api/transaction',
        body: { email: 'a@b.cl', order: 'r-1', subject: 's', amount: 100 },
      }),
    );
    expect(await t.ctx.db.selectFrom('transactions').select('id').execute()).toEqual([]);
    expect((await account(t, b)).statusCode).toBe(200);
    expect((await account(t, b)).statusCode).toBe(200);
  });

  it('counts requests without a known token per IP, so made-up tokens share one allowance', async () => {
    t = await appWith({ env: { RATE_LIMIT_PER_MINUTE: String(perMinute) } });
    const madeUp = () =>
      t!.app.inject({
        method: 'GET',
        url: '/api/account',
        headers: { authorization: `Bearer ${crypto.randomBytes(16).toString('hex')}` },
      });
    for (let i = 0; i < perMinute; i++) expect((await madeUp()).statusCode).toBe(401);
    expectLimited(await madeUp());
    expectLimited(await t.app.inject({ method: 'GET', url: '/api/banks?currency=clp' }));
    // Probes are never limited: a proxy's one address over its limit must not take the process out of rotation.
    for (let i = 0; i < perMinute + 2; i++)
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('is off with RATE_LIMIT_PER_MINUTE=0', async () => {
    t = await appWith({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    const a = await t.createAccount();
    for (let i = 0; i < 20; i++) expect((await account(t, a)).statusCode).toBe(200);
  });

  it("is on by default, high enough for a merchant's bursts", async () => {
    t = await appWith();
    expect(t.ctx.config.rateLimitPerMinute).toBe(6000);
    const a = await t.createAccount();
    const answers = await Promise.all(Array.from({ length: 200 }, () => account(t!, a)));
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
  });
});

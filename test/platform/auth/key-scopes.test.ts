// Issue 37 (decision 540): keys of narrower scope. The routes come from the router's own table (an onRoute hook on
// every module, as in the cross-account matrix), so a route added later without a scope fails here by name, and
// every scope is tried against every route: outside its scope a key gets the seed's 403 and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseDigest } from '../../support/db-digest.ts';
import { modulesRecordingRoutes } from '../../support/route-recorder.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { runOnContext } from '../../support/cli-in-process.ts';
import { keyIdOf } from '../../../src/platform/auth/auth-plugin.ts';
import { scopeAllows, type KeyScope } from '../../../src/platform/auth/key-scope.ts';

interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: string;
  readonly auth: string;
  readonly scope: KeyScope | undefined;
}

const routes: Route[] = [];
const recording = modulesRecordingRoutes((r) => {
  const config = (r.config ?? {}) as { auth?: string; scope?: KeyScope };
  for (const method of Array.isArray(r.method) ? r.method : [r.method])
    if (method !== 'HEAD' && r.url.startsWith('/api/'))
      routes.push({
        method: method as Route['method'],
        url: r.url,
        auth: config.auth ?? 'token',
        scope: config.scope,
      });
});
const name = (r: Route) => `${r.method} ${r.url}`;
const authenticating = () => routes.filter((r) => r.auth !== 'none');

let t: TestApp;
let account: TestAccount;

async function cli(...args: string[]): Promise<Record<string, string>> {
  const out = await runOnContext([...args, '--json'], t.ctx);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as Record<string, string>;
}

async function newKey(scope: KeyScope): Promise<TestAccount & { keyId: string }> {
  const made = await cli('keys', 'create', '--account', account.id, '--scope', scope);
  return {
    id: account.id,
    keyId: made.id!,
    publicToken: made.public_token!,
    privateToken: made.private_token!,
    webhookSecret: '',
  };
}

function call(key: TestAccount, route: Route, body?: unknown) {
  const url = route.url.replace(/:\w+/g, 'nosuchid0000');
  const write = route.method !== 'GET';
  return t.call(key, {
    method: route.method,
    url,
    body: write ? (body ?? {}) : undefined,
    sign: true,
    signature: write,
  });
}

const whoami = (key: TestAccount) =>
  t.call(key, { method: 'GET', url: '/api/test/whoami', sign: true });

beforeAll(async () => {
  t = await startTestApp({
    modules: recording,
    extraRoutes: (app) =>
      app.get('/api/test/whoami', { config: { auth: 'sign', scope: 'read' } }, async (request) => ({
        key: keyIdOf(request),
      })),
  });
  account = await t.createAccount('Scoped');
}, 60_000);
afterAll(async () => {
  await t.close();
});

describe('route scopes', () => {
  it('every route that authenticates names its scope', () => {
    expect(authenticating().length).toBeGreaterThan(40);
    expect(
      authenticating()
        .filter((r) => r.scope === undefined)
        .map(name),
      "routes without config.scope: add scope: 'read' | 'payments' | 'full' beside auth",
    ).toEqual([]);
    // `read` is every GET (and the conciliation query, a read sent as POST); no GET needs more.
    for (const r of authenticating().filter((r) => r.method === 'GET'))
      expect(r.scope, name(r)).toBe('read');
  });

  it('every state-changing route needs the scope docs/authentication.md gives it (decision 1035)', () => {
    // The matrix below refuses by each route's own config.scope; this pins that config to the documented table, so
    // a money-moving route declared `payments` (or a `payments` write declared `read`) fails here by name.
    const documented: Record<string, KeyScope> = {
      'POST /api/conciliation': 'read',
      'POST /api/transaction': 'payments',
      'POST /api/mall': 'payments',
      'POST /api/nullification': 'payments',
      'POST /api/suclient': 'payments',
      'PUT /api/suclient/:id': 'payments',
      'DELETE /api/suclient/:id': 'payments',
      'POST /api/suplan': 'payments',
      'POST /api/sususcription': 'payments',
      'DELETE /api/sususcription/:id': 'payments',
      'POST /api/suinscriptionscards': 'payments',
      'POST /api/suscriptionsdeletecards': 'payments',
      'POST /api/sutransaction': 'payments',
      'POST /api/disputes/:id/evidence': 'payments',
    };
    const writes = authenticating().filter((r) => r.method !== 'GET');
    expect(Object.fromEntries(writes.map((r) => [name(r), r.scope]))).toEqual(
      Object.fromEntries(writes.map((r) => [name(r), documented[name(r)] ?? 'full'])),
    );
    expect(writes.map(name)).toEqual(expect.arrayContaining(Object.keys(documented)));
    expect(writes.map(name)).toEqual(
      expect.arrayContaining([
        'POST /api/wallet/payout',
        'POST /api/wallet/withdraw',
        'POST /api/escrow',
      ]),
    );
  });

  for (const scope of ['read', 'payments', 'full'] as const)
    it(`a ${scope} key gets 403 on every route outside its scope, writing nothing, and passes the others`, async () => {
      const key = await newKey(scope);
      const before = await databaseDigest(t.ctx.db);
      const refused: string[] = [];
      const allowedWrites: Route[] = [];
      for (const route of authenticating()) {
        const allowed = scopeAllows(scope, route.scope!);
        if (allowed && route.method !== 'GET') {
          allowedWrites.push(route); // tried after the digest: an allowed write may write
          continue;
        }
        const res = await call(key, route);
        if (allowed) {
          expect(res.statusCode, `${name(route)}: ${res.body.slice(0, 200)}`).not.toBe(403);
          expect(res.statusCode, `${name(route)}: ${res.body.slice(0, 200)}`).not.toBe(401);
          continue;
        }
        expect(res.statusCode, `${name(route)} with a ${scope} key`).toBe(403);
        expect(res.json()).toEqual({
          status: 'failed',
          type: 'Forbidden',
          message_error: `this key's scope is ${scope}: this call needs a ${route.scope} key`,
        });
        refused.push(name(route));
      }
      expect(await databaseDigest(t.ctx.db), `a ${scope} key changed the database`).toBe(before);
      // The writes the scope allows get past the scope check (an empty body is then a validation error).
      for (const route of allowedWrites) {
        const res = await call(key, route);
        expect([401, 403], `${name(route)}: ${res.body.slice(0, 200)}`).not.toContain(
          res.statusCode,
        );
      }
      if (scope === 'full') expect(refused).toEqual([]);
      else expect(refused).toContain('POST /api/wallet/payout');
      if (scope === 'read')
        expect(refused).toEqual(
          authenticating()
            .filter((r) => r.method !== 'GET' && r.url !== '/api/conciliation')
            .map(name),
        );
    });
});

describe('keys', () => {
  const sale = {
    email: 'payer@example.com',
    order: 'scoped-1',
    subject: 'Scoped',
    amount: 1_000,
    urlreturn: 'https://shop.example.com/return',
    urlnotify: 'https://shop.example.com/notify',
  };

  it('a payments key takes a payment, signed with its own private token, and cannot pay out', async () => {
    const key = await newKey('payments');
    const res = await t.call(key, {
      method: 'POST',
      url: '/api/transaction',
      body: sale,
      sign: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'pending', url: expect.any(String) });
    const payout = await t.call(key, {
      method: 'POST',
      url: '/api/wallet/payout',
      body: { amount: 1_000 },
      sign: true,
    });
    expect(payout.statusCode).toBe(403);
    // Signed with the account's primary private token instead of the key's own: not this key's signature.
    const crossed = await t.call(
      { ...key, privateToken: account.privateToken },
      { method: 'GET', url: '/api/account', sign: true },
    );
    expect(crossed.json()).toMatchObject({ status: 'failed', message_error: 'invalid sign' });
    expect((await whoami(key)).json()).toEqual({ key: key.keyId });
    expect((await whoami(account)).json()).toEqual({ key: 'primary' });
  });

  it("a narrower key replaying a full key's Idempotency-Key on a payout gets 403, not the stored answer (decision 1035)", async () => {
    const credit = await t.call(account, {
      method: 'POST',
      url: '/api/sandbox/wallet/credit',
      body: { amount: 1_000, currency: 'CLP' },
    });
    expect(credit.statusCode, credit.body).toBe(200);
    const body = {
      email: 'payee@example.com',
      subject: 'pago',
      currency: 'CLP',
      order: 'replay-scope',
      amount: 1_000,
      accountbank_name: 'Payee',
      accountbank_rut: '111111111',
      accountbank_sbif: '0001',
      accountbank_type: '1',
      accountbank_num: '12312312312',
    };
    const keyed = (key: TestAccount) =>
      t.call(key, {
        method: 'POST',
        url: '/api/wallet/payout',
        body,
        sign: true,
        headers: { 'idempotency-key': 'scope-replay-1' },
      });
    expect((await keyed(account)).json().status).toBe('success');
    for (const scope of ['read', 'payments'] as const) {
      const res = await keyed(await newKey(scope));
      expect(res.statusCode).toBe(403);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(res.json().identifier_payout).toBeUndefined();
    }
  });

  it('a revoked key is refused at once; the others go on', async () => {
    const key = await newKey('read');
    expect((await whoami(key)).statusCode).toBe(200);
    const revoked = await cli('keys', 'revoke', key.keyId);
    expect(revoked.state).toBe('revoked');
    const res = await whoami(key);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ type: 'Unauthorized', message_error: 'invalid token' });
    expect((await whoami(account)).statusCode).toBe(200);
    const primary = await runOnContext(['keys', 'revoke', 'primary'], t.ctx);
    expect(primary.code).not.toBe(0);
  });

  it('a key rotated with a grace period: both pairs work until the grace ends, then only the new', async () => {
    const old = await newKey('payments');
    const made = await cli('keys', 'rotate', old.keyId, '--grace-hours', '2');
    const fresh = { ...old, publicToken: made.public_token!, privateToken: made.private_token! };
    expect(made.scope).toBe('payments');
    const listed = (await cli('keys', 'list', '--account', account.id)) as unknown as Array<
      Record<string, string | null>
    >;
    const oldRow = listed.find((k) => k.id === old.keyId);
    expect(oldRow).toMatchObject({ state: 'expiring', expires_at: '2026-03-10 14:00:00' });
    expect(listed.find((k) => k.id === made.id)).toMatchObject({
      state: 'active',
      expires_at: null,
    });
    expect((await whoami(old)).statusCode).toBe(200);
    expect((await whoami(fresh)).statusCode).toBe(200);
    t.clock.advanceMs(2 * 60 * 60 * 1000 - 1_000);
    expect((await whoami(old)).statusCode).toBe(200);
    t.clock.advanceMs(1_000);
    expect((await whoami(old)).statusCode).toBe(401);
    expect((await whoami(fresh)).statusCode).toBe(200);
  });

  it('accounts rotate --grace-hours keeps the old primary pair working for the grace, as a full key', async () => {
    const own = await t.createAccount('Rotating');
    const rotated = await cli(
      'accounts',
      'rotate',
      own.id,
      '--only',
      'tokens',
      '--grace-hours',
      '1',
    );
    const fresh = {
      ...own,
      publicToken: rotated.public_token!,
      privateToken: rotated.private_token!,
    };
    expect((await whoami(own)).statusCode).toBe(200);
    expect((await whoami(fresh)).json()).toEqual({ key: 'primary' });
    const listed = (await cli('keys', 'list', '--account', own.id)) as unknown as Array<
      Record<string, string | null>
    >;
    expect(listed.map((k) => [k.name, k.scope, k.state])).toEqual([
      ['primary', 'full', 'active'],
      ['primary (rotated)', 'full', 'expiring'],
    ]);
    t.clock.advanceMs(60 * 60 * 1000);
    expect((await whoami(own)).statusCode).toBe(401);
    expect((await whoami(fresh)).statusCode).toBe(200);
    // Without a grace the old pair stops at once, as before.
    const again = await cli('accounts', 'rotate', own.id, '--only', 'tokens');
    expect((await whoami(fresh)).statusCode).toBe(401);
    expect(again.public_token).not.toBe(fresh.publicToken);
    const bad = await runOnContext(['accounts', 'rotate', own.id, '--grace-hours', '721'], t.ctx);
    expect(bad.stderr).toContain('--grace-hours must be a whole number from 0 to 720');
  });
});

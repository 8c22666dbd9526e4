// Decision 640, through HTTP: a developer cannot mint a key that moves money, a second factor is replaced only with a
// code of the one enrolled, and the sign-in limit counts an IPv6 client per /64.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBrowser, type DashboardBrowser } from '../support/dashboard.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';
import { fund, payoutBody } from '../modules/wallet/wallet-helpers.ts';
import { newTotpSecret, totpCode } from '../../src/dashboard/totp.ts';

let t: TestApp;
let account: TestAccount;
const password = 'correct horse battery';

async function userBrowser(email: string, role: string): Promise<DashboardBrowser> {
  const out = await runOnContext(
    ['users', 'invite', '--account', account.id, '--email', email, '--role', role, '--json'],
    t.ctx,
  );
  expect(out.code, out.stderr).toBe(0);
  const link = new URL((JSON.parse(out.stdout) as { link: string }).link);
  const b = dashboardBrowser(t);
  expect((await b.get(`${link.pathname}${link.search}`)).statusCode).toBe(200);
  const res = await b.post('/dashboard/invite', {
    token: link.searchParams.get('token')!,
    password,
    password_again: password,
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
  return b;
}

beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount('Revisado');
}, 60_000);
afterAll(async () => {
  await t.close();
});

describe('dashboard roles', () => {
  it('a developer (who may not move money) cannot mint a full key and pay out with it', async () => {
    // Decision 541: a developer manages API keys and resends callbacks; only an admin moves money.
    const developer = await userBrowser('dev@example.com', 'developer');
    await developer.get('/dashboard/keys');
    const made = await developer.post('/dashboard/keys', { scope: 'full', name: 'mine' });
    const publicToken = /Token público: <code>([^<]+)<\/code>/.exec(made.body)?.[1];
    const privateToken = /Token privado: <code>([^<]+)<\/code>/.exec(made.body)?.[1];
    await fund(t, account, 50_000);
    if (publicToken !== undefined && privateToken !== undefined) {
      const key = { id: account.id, publicToken, privateToken, webhookSecret: '' };
      const res = await t.call(key, {
        method: 'POST',
        url: '/api/wallet/payout',
        body: payoutBody({ order: 'dev-escalation', amount: 40_000 }),
        sign: true,
      });
      // The developer's key moved 40 000 CLP out of the wallet.
      expect(res.json(), 'a developer-made key paid out').not.toMatchObject({ status: 'success' });
    }
    expect(made.statusCode, 'a developer was allowed to create a full key').not.toBe(200);
  });
});

describe('dashboard keys by role', () => {
  it("lets a developer make read keys only (decision 925), shows it no full key's public token, and lets an admin make a full one", async () => {
    const developer = await userBrowser('dev2@example.com', 'developer');
    const page = await developer.get('/dashboard/keys');
    expect(page.body).not.toContain('<option value="full">');
    expect(page.body).not.toContain(account.publicToken);
    const made = await developer.post('/dashboard/keys', { scope: 'read', name: 'lectura' });
    expect(made.statusCode).toBe(200);
    expect(made.body).toContain('Token privado:');
    const admin = await userBrowser('admin@example.com', 'admin');
    const adminPage = await admin.get('/dashboard/keys');
    expect(adminPage.body).toContain('<option value="full">');
    expect(adminPage.body).toContain(account.publicToken);
    expect((await admin.post('/dashboard/keys', { scope: 'full', name: 'todo' })).statusCode).toBe(
      200,
    );
  });
});

describe('dashboard second factor', () => {
  it('replacing an enrolled TOTP factor needs a code of the current one', async () => {
    const b = await userBrowser('victim@example.com', 'viewer');
    const page = await b.get('/dashboard/account/totp');
    const secret = /name="secret" value="([A-Z2-7]{32})"/.exec(page.body)![1]!;
    const first = await b.post('/dashboard/account/totp', {
      secret,
      code: totpCode(secret, t.clock.now()),
    });
    expect(first.statusCode).toBe(200);
    // Whoever holds the session (a borrowed laptop, a stolen cookie) posts a secret of their own, with its own code:
    // no code of the factor already enrolled is asked for.
    t.clock.advanceMs(30_000);
    const attackers = newTotpSecret();
    await b.get('/dashboard/account/totp');
    const swapped = await b.post('/dashboard/account/totp', {
      secret: attackers,
      code: totpCode(attackers, t.clock.now()),
    });
    // The owner's authenticator no longer signs in; the attacker's does.
    t.clock.advanceMs(30_000);
    const owner = dashboardBrowser(t);
    await owner.get('/dashboard/login');
    const ownerSignIn = await owner.post('/dashboard/login', {
      email: 'victim@example.com',
      password,
      code: totpCode(secret, t.clock.now()),
    });
    expect(
      swapped.statusCode,
      'the second factor was replaced without a code of the enrolled one',
    ).not.toBe(200);
    expect(ownerSignIn.statusCode).toBe(303);
    // With a code of the enrolled factor, the user replaces it; the new one signs in from then on.
    t.clock.advanceMs(30_000);
    const next = newTotpSecret();
    expect((await b.get('/dashboard/account/totp')).body).toContain('name="current_code"');
    const replaced = await b.post('/dashboard/account/totp', {
      secret: next,
      code: totpCode(next, t.clock.now()),
      current_code: totpCode(secret, t.clock.now()),
    });
    expect(replaced.statusCode).toBe(200);
    t.clock.advanceMs(30_000);
    const again = dashboardBrowser(t);
    await again.get('/dashboard/login');
    const signIn = await again.post('/dashboard/login', {
      email: 'victim@example.com',
      password,
      code: totpCode(next, t.clock.now()),
    });
    expect(signIn.statusCode).toBe(303);
  });
});

describe('dashboard sign-in limit', () => {
  it('counts an IPv6 client per /64, as the API limit does, so new addresses of one host get no new tries', async () => {
    const limited = await startTestApp({ sharing: t });
    try {
      const post = (remoteAddress: string) =>
        limited.app.inject({
          method: 'POST',
          url: '/dashboard/login',
          remoteAddress,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'email=victim%40example.com&password=guess&code=000000',
        });
      // One host holds a whole /64 (2^64 addresses); each guess comes from the next address of it.
      // Control: one address alone is limited after 30 posts a minute.
      const one: number[] = [];
      for (let i = 0; i < 31; i++) one.push((await post('2001:db8:9:9::1')).statusCode);
      expect(one.at(-1)).toBe(429);
      const statuses: number[] = [];
      for (let i = 1; i <= 60; i++)
        statuses.push((await post(`2001:db8:1:2::${i.toString(16)}`)).statusCode);
      expect(
        statuses.filter((s) => s === 429).length,
        'no sign-in post of the /64 was limited',
      ).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

// Review r-authz: defects of dashboard sessions, roles and keys, each shown through the real stack (app.inject on
// the whole app, a real database). Each test fails while the defect it names is there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBrowser, type DashboardBrowser } from '../support/dashboard.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';

let t: TestApp;
const password = 'correct horse battery';

async function userBrowser(account: TestAccount, email: string, role: string) {
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

async function tokenBrowser(account: TestAccount): Promise<DashboardBrowser> {
  const b = dashboardBrowser(t);
  const signedIn = await b.signIn(account);
  expect(signedIn.statusCode, signedIn.body.slice(0, 300)).toBe(303);
  expect((await b.get('/dashboard')).statusCode).toBe(200);
  return b;
}

beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

describe('token sign-in turned off ends the sessions it opened', () => {
  it('a session opened with the tokens stays ended when token sign-in is turned on again', async () => {
    // docs/dashboard.md: turning token sign-in off "ends the sessions opened with the tokens". An owner turns it
    // off because the tokens leaked and someone signed in with them; turning it back on later (say, for a script
    // after the tokens were rotated... or simply by mistake) must not bring the intruder's session back.
    const account = await t.createAccount('Sesiones con tokens');
    const owner = await userBrowser(account, 'owner-toggle@example.com', 'owner');
    const intruder = await tokenBrowser(account);
    await owner.get('/dashboard/users');
    expect((await owner.post('/dashboard/users/token-sign-in', {})).statusCode).toBe(303);
    expect((await intruder.get('/dashboard')).statusCode, 'ended while off').toBe(303);
    await owner.get('/dashboard/users');
    const on = await owner.post('/dashboard/users/token-sign-in', { allowed: 'on' });
    expect(on.statusCode).toBe(303);
    // The intruder did not sign in again: the old cookie must still open nothing.
    const after = await intruder.get('/dashboard');
    expect(after.statusCode, 'the ended session came back to life').toBe(303);
  });
});

describe('rotating the tokens ends every session of the account', () => {
  it("a named user's session ends with a rotation as docs/dashboard.md says", async () => {
    // docs/dashboard.md "Signing in": a session ends ... "or at once for every session of the account when its
    // tokens are rotated (`cobro accounts rotate ID`)". Whoever held the leaked tokens could sign in as the owner
    // and invite themselves as an owner; the rotation an operator runs on the leak leaves that user signed in.
    const account = await t.createAccount('Rotada');
    const user = await userBrowser(account, 'rotated-user@example.com', 'owner');
    const byTokens = await tokenBrowser(account);
    const rotated = await runOnContext(['accounts', 'rotate', account.id], t.ctx);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect((await byTokens.get('/dashboard')).statusCode, 'token session ended').toBe(303);
    expect(
      (await user.get('/dashboard')).statusCode,
      "the user's session outlived the rotation",
    ).toBe(303);
  });
});

describe("one account's invitation and another's users", () => {
  it('an expired, never-used invitation of one account does not keep another account from inviting that e-mail', async () => {
    // E-mails are unique across accounts (decision 541), and inviteUser refuses an e-mail another account holds
    // even when that account's link was never used and expired long ago: any merchant can reserve a stranger's
    // e-mail for good (there is no command to remove a user), and learns from the refusal that the e-mail is a
    // Cobro user elsewhere.
    const squatter = await t.createAccount('Reserva correos');
    const victim = await t.createAccount('Empresa grande');
    const reserved = await runOnContext(
      [
        'users',
        'invite',
        '--account',
        squatter.id,
        '--email',
        'cfo@empresa.cl',
        '--role',
        'viewer',
      ],
      t.ctx,
    );
    expect(reserved.code, reserved.stderr).toBe(0);
    // Two days later the squatter's link is long dead (24 h); the real employer invites its CFO.
    const later = await startTestApp({
      sharing: t,
      clockStart: new Date(t.clock.now().getTime() + 48 * 3600 * 1000).toISOString(),
    });
    try {
      const invited = await runOnContext(
        ['users', 'invite', '--account', victim.id, '--email', 'cfo@empresa.cl', '--role', 'owner'],
        later.ctx,
      );
      expect(invited.stderr, 'an expired invitation of another account blocks the e-mail').toBe('');
      expect(invited.code).toBe(0);
    } finally {
      await later.close();
    }
  });
});

describe('odd input on the dashboard is refused, not crashed', () => {
  // House rule and decision 680: a client's mistake never yields a 500. The API's input guards refuse a NUL byte;
  // the dashboard sits outside them, and PostgreSQL (PGlite too) rejects a NUL in text, so each of these answered
  // the 500 page and logged "dashboard failed" at error level. The first needs no session at all.
  it('a NUL byte in the public sign-in form answers 401, not 500', async () => {
    const b = dashboardBrowser(t);
    await b.get('/dashboard/login');
    const res = await b.post('/dashboard/login', {
      email: 'a\u0000@example.com',
      password: 'x'.repeat(12),
    });
    expect(res.statusCode).toBe(401);
  });

  it("a NUL byte in a signed-in page's id, filter or form answers 404 or 400, not 500", async () => {
    const account = await t.createAccount('Entrada rara');
    const b = await tokenBrowser(account);
    const answers: Record<string, number> = {};
    for (const url of [
      '/dashboard/transactions/%00',
      '/dashboard/transactions?q=%00',
      '/dashboard/callbacks/%00',
      '/dashboard/subscriptions/%00',
      '/dashboard/subscriptions?plan=%00',
    ])
      answers[`GET ${url}`] = (await b.get(url)).statusCode;
    await b.get('/dashboard/users');
    answers['POST /dashboard/users/invite'] = (
      await b.post('/dashboard/users/invite', { email: 'v\u0000@example.com', role: 'viewer' })
    ).statusCode;
    await b.get('/dashboard/keys');
    answers['POST /dashboard/keys'] = (
      await b.post('/dashboard/keys', { scope: 'read', name: 'n\u0000' })
    ).statusCode;
    await b.get('/dashboard/keys');
    answers['POST /dashboard/keys/revoke'] = (
      await b.post('/dashboard/keys/revoke', { key_id: 'k\u0000' })
    ).statusCode;
    const crashed = Object.entries(answers).filter(([, status]) => status >= 500);
    expect(crashed, 'dashboard requests that answered 5xx').toEqual([]);
  });
});

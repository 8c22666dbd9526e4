// Decision 1090: a review of the dashboard's sessions and sign-in, through HTTP on the whole app. Three findings
// (each failed before the decision): one user's password, or code, could be guessed from many addresses without
// limit; a session left alone lived its whole 12 hours; a form posted from another origin (a sibling subdomain that
// planted its own cobro_csrf cookie) signed the victim in to the attacker's account. The rest pins what held.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/platform/process/logger.ts';
import { dashboardBrowser, type DashboardBrowser } from '../support/dashboard.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';
import { dashboardLimits } from '../../src/limits/index.ts';
import { sessionCookie } from '../../src/dashboard/session.ts';
import { deviceCookie } from '../../src/dashboard/device-cookie.ts';
import { sha256Hex } from '../../src/platform/auth/secrets.ts';
import { totpCode } from '../../src/dashboard/totp.ts';

const password = 'correct horse battery';
let t: TestApp;
// Every browser of this file has an address of its own: the sign-in forms count per address.
let nextAddress = 1;
const browser = () =>
  dashboardBrowser(t, `198.18.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`);
const minuteMs = 60_000;

beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

async function inviteLink(account: TestAccount, email: string, role = 'viewer'): Promise<URL> {
  const out = await runOnContext(
    ['users', 'invite', '--account', account.id, '--email', email, '--role', role, '--json'],
    t.ctx,
  );
  expect(out.code, out.stderr).toBe(0);
  return new URL((JSON.parse(out.stdout) as { link: string }).link);
}

async function accept(link: URL, b: DashboardBrowser = browser()) {
  const page = await b.get(`${link.pathname}${link.search}`);
  // A dead link's page has no form: the sign-in page's token is as good (both are signed out), so the post is tried.
  if (!page.body.includes('name="_csrf"')) await b.get('/dashboard/login');
  return b.post('/dashboard/invite', {
    token: link.searchParams.get('token')!,
    password,
    password_again: password,
  });
}

async function signInUser(email: string, pass = password, b: DashboardBrowser = browser()) {
  await b.get('/dashboard/login');
  return b.post('/dashboard/login', { email, password: pass });
}

const sessionRows = async (accountId: string) =>
  (
    await t.ctx.db
      .selectFrom('dashboard_sessions')
      .select('id_hash')
      .where('account_id', '=', accountId)
      .execute()
  ).length;

describe('finding: one user is guessed no faster from many addresses than from one', () => {
  it("an e-mail's sign-ins are limited across addresses, a known and an unknown e-mail alike", async () => {
    const account = await t.createAccount('Fuerza bruta');
    expect(
      (await accept(await inviteLink(account, 'target-1090@example.com', 'owner'))).statusCode,
    ).toBe(303);
    const guesses = async (email: string) => {
      const statuses: number[] = [];
      // Each guess from another address: the per-address limit (30 a minute) never applies.
      for (let i = 0; i < dashboardLimits.signInsPerUserPerMinute + 5; i++)
        statuses.push((await signInUser(email, `wrong guess ${i}`)).statusCode);
      return statuses;
    };
    const known = await guesses('target-1090@example.com');
    expect(
      known.filter((s) => s === 401).length,
      'every guess of one user from a new address was checked',
    ).toBe(dashboardLimits.signInsPerUserPerMinute);
    expect(known.at(-1)).toBe(429);
    // An e-mail nobody has answers alike: the limit tells no user apart.
    expect(await guesses('Nobody-1090@Example.com')).toEqual(known);
    // The right password waits out the minute too; the limit counts real time, as the address's does.
    expect((await signInUser('target-1090@example.com')).statusCode).toBe(429);
  });
});

describe('finding: a session left alone ends', () => {
  it('an idle session ends after sessionIdleMs on the service clock; a used one lives until sessionMs', async () => {
    const account = await t.createAccount('Sesion inactiva');
    const idle = browser();
    expect((await idle.signIn(account)).statusCode).toBe(303);
    const busy = browser();
    expect((await busy.signIn(account)).statusCode).toBe(303);
    t.clock.advanceMs(dashboardLimits.sessionIdleMs - minuteMs);
    expect((await busy.get('/dashboard')).statusCode).toBe(200);
    t.clock.advanceMs(2 * minuteMs);
    const left = await idle.get('/dashboard');
    expect(left.statusCode, 'a session unused past the idle bound still opened the dashboard').toBe(
      303,
    );
    expect(left.headers.location).toBe('/dashboard/login?next=%2Fdashboard');
    // Used every so often, a session lasts its absolute bound and not a minute more.
    let elapsedMs = dashboardLimits.sessionIdleMs + minuteMs;
    const stepMs = dashboardLimits.sessionIdleMs - 5 * minuteMs;
    while (elapsedMs + stepMs < dashboardLimits.sessionMs) {
      t.clock.advanceMs(stepMs);
      elapsedMs += stepMs;
      expect((await busy.get('/dashboard')).statusCode).toBe(200);
    }
    t.clock.advanceMs(dashboardLimits.sessionMs - elapsedMs + 1);
    expect((await busy.get('/dashboard')).statusCode).toBe(303);
  });
});

describe('finding: a form posted from another origin changes nothing', () => {
  it("a sibling subdomain's planted cookie and token sign nobody in to the attacker's account", async () => {
    // The attacker's own visit to the sign-in page gives a signed cobro_csrf cookie and its signed-out token; from a
    // sibling subdomain (the same site: SameSite=Strict lets the cookie through) the attacker plants that cookie in
    // the victim's browser and posts the form with their own tokens. The victim then works in the attacker's
    // account: the payout bank account they type, the keys they make.
    const attackerAccount = await t.createAccount('Cuenta del atacante');
    const attacker = browser();
    const page = await attacker.get('/dashboard/login');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const victim = browser();
    victim.cookies.set('cobro_csrf', attacker.cookies.get('cobro_csrf')!);
    const forged = await victim.post(
      '/dashboard/login',
      {
        _csrf: token,
        public_token: attackerAccount.publicToken,
        private_token: attackerAccount.privateToken,
      },
      { origin: 'https://promo.example.com', 'sec-fetch-site': 'same-site' },
    );
    expect(victim.cookies.has(sessionCookie), 'the victim was signed in to the attacker').toBe(
      false,
    );
    expect(forged.statusCode).toBe(403);
  });

  it('a signed-in form with a good token but a foreign Origin or Sec-Fetch-Site makes no key', async () => {
    const account = await t.createAccount('Origen ajeno');
    const b = browser();
    expect((await b.signIn(account)).statusCode).toBe(303);
    const keys = async () =>
      (
        await t.ctx.db
          .selectFrom('api_keys')
          .select('id')
          .where('account_id', '=', account.id)
          .execute()
      ).length;
    const before = await keys();
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of foreign) {
      await b.get('/dashboard/keys');
      const res = await b.post('/dashboard/keys', { scope: 'read', name: 'ajena' }, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
    }
    expect(await keys()).toBe(before);
    // The dashboard's own origin, and a client that sends neither header, still work.
    await b.get('/dashboard/keys');
    const own = await b.post(
      '/dashboard/keys',
      { scope: 'read', name: 'propia' },
      { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' },
    );
    expect(own.statusCode).toBe(200);
    await b.get('/dashboard/keys');
    expect(
      (await b.post('/dashboard/keys', { scope: 'read', name: 'sin origen' })).statusCode,
    ).toBe(200);
    expect(await keys()).toBe(before + 2);
  });
});

// Decision 1185: decision 1090's per-user limit let anyone keep a user out by guessing at its e-mail (decision 1165
// left it open). A browser where the user signed in keeps a device cookie; its sign-ins are counted per device.
describe('finding: guesses at a user keep out no browser where the user signed in before', () => {
  /** Guesses at `email` from new addresses past the per-user limit (the user's own sign-ins spent some of it). */
  const flood = async (email: string) => {
    const statuses: number[] = [];
    for (let i = 0; i <= dashboardLimits.signInsPerUserPerMinute; i++)
      statuses.push((await signInUser(email, `flood ${i}`)).statusCode);
    expect(statuses.at(-1)).toBe(429);
  };
  const signOut = async (b: DashboardBrowser) => {
    await b.get('/dashboard');
    expect((await b.post('/dashboard/logout', {})).statusCode).toBe(303);
  };

  it("the user's own browser signs in through someone else's flood; another browser still waits", async () => {
    const account = await t.createAccount('Galleta del dispositivo');
    const u = 'device-u-1185@example.com';
    expect((await accept(await inviteLink(account, u, 'owner'))).statusCode).toBe(303);
    const laptop = browser();
    const first = await signInUser(u, password, laptop);
    expect(first.statusCode).toBe(303);
    expect(first.cookies.find((c) => c.name === deviceCookie)).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
      path: '/dashboard',
      maxAge: Math.floor(dashboardLimits.deviceCookieMs / 1000),
    });
    await signOut(laptop);
    expect(laptop.cookies.has(deviceCookie), 'signing out keeps the device cookie').toBe(true);
    await flood(u);
    expect((await signInUser(u)).statusCode, 'a browser without the cookie waits, as before').toBe(
      429,
    );
    expect((await signInUser(u, password, laptop)).statusCode).toBe(303);
    // The second factor's form, counted with the user's sign-ins, is not refused to the device either.
    const secret = /name="secret" value="([A-Z2-7]+)"/.exec(
      (await laptop.get('/dashboard/account/totp')).body,
    )![1]!;
    const enrol = { secret, code: '000000', current_code: '000000' };
    expect((await laptop.post('/dashboard/account/totp', enrol)).statusCode).toBe(400);
    laptop.cookies.delete(deviceCookie);
    await laptop.get('/dashboard/account/totp');
    expect((await laptop.post('/dashboard/account/totp', enrol)).statusCode).toBe(429);
  });

  it("one user's device cookie lifts nothing for another user's e-mail", async () => {
    const account = await t.createAccount('Galleta ajena');
    const u = 'device-own-1185@example.com';
    const v = 'device-other-1185@example.com';
    const laptop = browser();
    expect((await accept(await inviteLink(account, u, 'owner'), laptop)).statusCode).toBe(303);
    expect(laptop.cookies.has(deviceCookie), 'accepting an invitation gives one too').toBe(true);
    expect((await accept(await inviteLink(account, v, 'owner'))).statusCode).toBe(303);
    await signOut(laptop);
    await flood(v);
    expect((await signInUser(v, password, laptop)).statusCode).toBe(429);
  });

  it('a forged, altered or expired device cookie counts as none', async () => {
    const account = await t.createAccount('Galleta falsa');
    const u = 'device-forged-1185@example.com';
    expect((await accept(await inviteLink(account, u, 'owner'))).statusCode).toBe(303);
    const laptop = browser();
    expect((await signInUser(u, password, laptop)).statusCode).toBe(303);
    const real = laptop.cookies.get(deviceCookie)!;
    await signOut(laptop);
    await flood(u);
    const value = decodeURIComponent(real);
    const [userId, givenMs] = value.split('.');
    const forgeries = [
      // The value alone, unsigned; the value with another nonce under the real signature; another's signature.
      `${userId}.${givenMs}.forged`,
      encodeURIComponent(value.replace(/\.([\w-]+)\.([^.]+)$/, '.AAAA$1.$2')),
      encodeURIComponent(`${userId}.${givenMs}.nonce.${value.split('.').at(-1)!}`),
      `${real}x`,
    ];
    for (const forged of forgeries) {
      const b = browser();
      b.cookies.set(deviceCookie, forged);
      expect((await signInUser(u, password, b)).statusCode, forged).toBe(429);
    }
    // The lifetime is in the signed value: a cookie older than deviceCookieMs is refused whatever the browser keeps.
    t.clock.advanceMs(dashboardLimits.deviceCookieMs + 1);
    expect((await signInUser(u, password, laptop)).statusCode).toBe(429);
  });

  it('a device cookie is no faster guessing channel: counted per device, not per user', async () => {
    const account = await t.createAccount('Galleta contada');
    const w = 'device-count-1185@example.com';
    expect((await accept(await inviteLink(account, w, 'owner'))).statusCode).toBe(303);
    const laptop = browser();
    expect((await signInUser(w, password, laptop)).statusCode).toBe(303);
    await signOut(laptop);
    for (let i = 0; i < dashboardLimits.signInsPerDevicePerMinute; i++)
      expect((await signInUser(w, `device guess ${i}`, laptop)).statusCode).toBe(401);
    expect((await signInUser(w, password, laptop)).statusCode).toBe(429);
    // The device's guesses spent none of the user's count: another browser signs in, with a count of its own.
    const phone = browser();
    expect((await signInUser(w, password, phone)).statusCode).toBe(303);
    expect(phone.cookies.get(deviceCookie)).not.toBe(laptop.cookies.get(deviceCookie));
  });

  // Decision 1195: each sign-in gives a new device cookie, each counted on its own. Whoever once knew the password
  // could sign in again and again and keep every cookie; a reset (the way back from a leak) or a second factor added
  // afterwards left them all honoured, so the new password, or the new factor's code, was guessed at 10 a minute
  // per kept cookie, past the per-user limit. The cookie is bound to the credentials it was given under.
  /** Signs in `count` times from new browsers with the password, as someone who learnt it would, keeping the cookies. */
  const mintCookies = async (email: string, count: number) => {
    const kept: string[] = [];
    for (let i = 0; i < count; i++) {
      const b = browser();
      expect((await signInUser(email, password, b)).statusCode).toBe(303);
      kept.push(b.cookies.get(deviceCookie)!);
    }
    return kept;
  };
  const guessWith = async (email: string, kept: readonly string[]) => {
    const statuses: number[] = [];
    for (const cookie of kept) {
      const b = browser();
      b.cookies.set(deviceCookie, cookie);
      statuses.push((await signInUser(email, 'a guess at the new password', b)).statusCode);
    }
    return statuses;
  };

  it('device cookies given before a reset count as none after it (decision 1195)', async () => {
    const account = await t.createAccount('Galleta tras reinicio');
    const u = 'device-reset-1195@example.com';
    expect((await accept(await inviteLink(account, u, 'owner'))).statusCode).toBe(303);
    const kept = await mintCookies(u, 3);
    const reset = await runOnContext(
      ['users', 'reset', '--account', account.id, '--email', u, '--json'],
      t.ctx,
    );
    expect(reset.code, reset.stderr).toBe(0);
    const own = browser();
    const link = new URL((JSON.parse(reset.stdout) as { link: string }).link);
    expect((await accept(link, own)).statusCode).toBe(303);
    await flood(u);
    // Before: 401 each, a fresh 10 guesses a minute per kept cookie.
    expect(await guessWith(u, kept)).toEqual([429, 429, 429]);
    // The browser that took the new link got a cookie under the new password: it signs in through the flood.
    await signOut(own);
    expect((await signInUser(u, password, own)).statusCode).toBe(303);
  });

  it('device cookies given before a second factor was added count as none after it (decision 1195)', async () => {
    const account = await t.createAccount('Galleta tras segundo factor');
    const u = 'device-factor-1195@example.com';
    const own = browser();
    expect((await accept(await inviteLink(account, u, 'owner'), own)).statusCode).toBe(303);
    const kept = await mintCookies(u, 2);
    const secret = /name="secret" value="([A-Z2-7]{32})"/.exec(
      (await own.get('/dashboard/account/totp')).body,
    )![1]!;
    const code = totpCode(secret, t.clock.now());
    expect((await own.post('/dashboard/account/totp', { secret, code })).statusCode).toBe(200);
    await flood(u);
    // Before: 401 each: the code of the factor added against the leak was guessed per kept cookie.
    expect(await guessWith(u, kept)).toEqual([429, 429]);
  });
});

describe('what held, pinned', () => {
  it('the session cookie: HttpOnly, SameSite=Strict, Path=/dashboard, a 256-bit id, Secure behind https', async () => {
    const account = await t.createAccount('Galletas');
    const ids = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const res = await browser().signIn(account);
      const cookie = res.cookies.find((c) => c.name === sessionCookie)!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
      expect(cookie.secure).not.toBe(true);
      const id = cookie.value.split('.')[0]!;
      expect(id).toMatch(/^[\w-]{43}$/);
      ids.add(id);
      // The id is in no URL the dashboard answers with.
      expect(String(res.headers.location)).not.toContain(id);
    }
    expect(ids.size).toBe(2);
    const https = await startTestApp({
      sharing: t,
      env: { PUBLIC_BASE_URL: 'https://pagos.example.com' },
    });
    try {
      const secure = dashboardBrowser(https, '198.18.200.1');
      const page = await secure.get('/dashboard/login');
      expect(page.cookies.find((c) => c.name === 'cobro_csrf')).toMatchObject({ secure: true });
      const res = await secure.post('/dashboard/login', {
        public_token: account.publicToken,
        private_token: account.privateToken,
      });
      expect(res.cookies.find((c) => c.name === sessionCookie)).toMatchObject({ secure: true });
    } finally {
      await https.close();
    }
  });

  it("the session id is in no line of the service's log", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = await startTestApp({ sharing: t, logger: pino(loggerOptions('debug'), stream) });
    try {
      const account = await t.createAccount('Registro de sesiones');
      const b = dashboardBrowser(logged, '198.18.201.1');
      const signedIn = await b.signIn(account);
      const id = signedIn.cookies.find((c) => c.name === sessionCookie)!.value.split('.')[0]!;
      await b.get('/dashboard/keys');
      await b.post('/dashboard/keys', { scope: 'read', name: 'registrada' });
      await b.get('/dashboard');
      await b.post('/dashboard/logout', {});
      const log = lines.join('');
      // The requests were logged, with their paths; neither the session id nor the CSRF secret's cookie was.
      expect(log).toContain('/dashboard/keys');
      expect(log).not.toContain(id);
      expect(log).not.toContain(b.cookies.get('cobro_csrf')!.split('.')[0]!);
    } finally {
      await logged.close();
    }
  });

  it('a sign-in opens a new session whatever session cookie the browser brought (no fixation)', async () => {
    const account = await t.createAccount('Fijacion');
    const planted = browser();
    await planted.signIn(account);
    const plantedId = planted.cookies.get(sessionCookie)!;
    const victim = browser();
    victim.cookies.set(sessionCookie, plantedId);
    await victim.get('/dashboard/login');
    expect((await victim.signIn(account)).statusCode).toBe(303);
    expect(victim.cookies.get(sessionCookie)).not.toBe(plantedId);
  });

  it('signing out needs its token and ends the session on the server, not only in the browser', async () => {
    const account = await t.createAccount('Salir');
    const b = browser();
    await b.signIn(account);
    const cookie = b.cookies.get(sessionCookie)!;
    await b.get('/dashboard');
    expect((await b.post('/dashboard/logout', { _csrf: 'forged' })).statusCode).toBe(403);
    expect((await b.get('/dashboard')).statusCode).toBe(200);
    expect((await b.post('/dashboard/logout', {})).statusCode).toBe(303);
    expect(await sessionRows(account.id)).toBe(0);
    const replay = browser();
    replay.cookies.set(sessionCookie, cookie);
    expect((await replay.get('/dashboard')).statusCode).toBe(303);
  });

  it("a removed user's and a demoted user's sessions lose their power on the next request", async () => {
    const account = await t.createAccount('Quitar y bajar');
    const removed = browser();
    expect(
      (await accept(await inviteLink(account, 'gone-1090@example.com', 'owner'), removed))
        .statusCode,
    ).toBe(303);
    const demoted = browser();
    expect(
      (await accept(await inviteLink(account, 'down-1090@example.com', 'owner'), demoted))
        .statusCode,
    ).toBe(303);
    expect((await removed.get('/dashboard/users')).statusCode).toBe(200);
    expect((await demoted.get('/dashboard/users')).statusCode).toBe(200);
    const out = await runOnContext(
      ['users', 'remove', '--account', account.id, '--email', 'gone-1090@example.com'],
      t.ctx,
    );
    expect(out.code, out.stderr).toBe(0);
    expect((await removed.get('/dashboard')).statusCode).toBe(303);
    // No form changes a role yet; whatever changes it, the session reads the role on each request.
    await t.ctx.db
      .updateTable('dashboard_users')
      .set({ role: 'viewer' })
      .where('email', '=', 'down-1090@example.com')
      .execute();
    expect((await demoted.get('/dashboard/users')).statusCode).toBe(403);
    expect((await demoted.get('/dashboard')).statusCode).toBe(200);
  });

  it('a wrong password and an unknown e-mail answer the same page', async () => {
    const account = await t.createAccount('Enumeracion');
    await accept(await inviteLink(account, 'known-1090@example.com'));
    const wrong = await signInUser('known-1090@example.com', 'not the password at all');
    const unknown = await signInUser('unknown-1090@example.com', 'not the password at all');
    const invited = await inviteLink(account, 'pending-1090@example.com');
    expect(invited.searchParams.get('token')).toMatch(/^[\w-]{43}$/);
    const pending = await signInUser('pending-1090@example.com', 'not the password at all');
    const strip = (body: string) =>
      body.replace(/name="_csrf" value="[^"]+"/g, '').replace(/value="[^"]*@example.com"/g, '');
    for (const res of [wrong, unknown, pending]) expect(res.statusCode).toBe(401);
    expect(strip(unknown.body)).toBe(strip(wrong.body));
    expect(strip(pending.body)).toBe(strip(wrong.body));
  });

  it('an invitation link works once and not after its 24 hours', async () => {
    const account = await t.createAccount('Enlaces');
    const link = await inviteLink(account, 'once-1090@example.com');
    expect((await accept(link)).statusCode).toBe(303);
    expect((await accept(link)).statusCode).not.toBe(303);
    const late = await inviteLink(account, 'late-1090@example.com');
    t.clock.advanceMs(24 * 60 * minuteMs + 1);
    expect((await accept(late)).statusCode).not.toBe(303);
    const stored = await t.ctx.db
      .selectFrom('dashboard_users')
      .select(['invite_hash', 'password_hash'])
      .where('email', '=', 'late-1090@example.com')
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({
      invite_hash: sha256Hex(late.searchParams.get('token')!),
      password_hash: null,
    });
  });
});

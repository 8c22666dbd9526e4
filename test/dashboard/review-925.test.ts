// Review 925 (the merchant's dashboard, typed client and OpenAPI document): each finding shown through the real stack
// (the whole app through app.inject, a real database). Each test failed before its mend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBrowser } from '../support/dashboard.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { listKeys } from '../../src/modules/accounts/keys.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

function formToken(body: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(body);
  if (match?.[1] === undefined) throw new Error('page has no CSRF token');
  return match[1];
}

describe('a form token belongs to the session it was shown to', () => {
  it("another browser's CSRF cookie and token, planted beside the merchant's session, change nothing", async () => {
    // Double submit without a binding: whoever can set a cookie for the host (a sibling subdomain, or a plain-http
    // answer on the path to the merchant) plants their own cobro_csrf cookie and posts its token with the
    // merchant's session. The token must be good only for the session it was shown to.
    const victimAccount = await t.createAccount('Victima CSRF');
    const victim = dashboardBrowser(t);
    expect((await victim.signIn(victimAccount)).statusCode).toBe(303);
    expect((await victim.get('/dashboard/keys')).statusCode).toBe(200);

    const attacker = dashboardBrowser(t);
    const page = await attacker.get('/dashboard/login');
    const attackerToken = formToken(page.body);
    const attackerCsrfCookie = attacker.cookies.get('cobro_csrf');
    expect(attackerCsrfCookie).toBeDefined();

    const cookies = new Map(victim.cookies);
    cookies.set('cobro_csrf', attackerCsrfCookie!);
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/keys',
      payload: new URLSearchParams({
        _csrf: attackerToken,
        name: 'planted',
        scope: 'full',
      }).toString(),
      headers: {
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html',
      },
    });
    expect(res.statusCode).toBe(403);
    const keys = await listKeys(t.ctx, victimAccount.id);
    expect(keys.ok && keys.value.map((k) => k.name)).not.toContain('planted');

    // The merchant's own form, from the merchant's own page, still works.
    await victim.get('/dashboard/keys');
    const own = await victim.post('/dashboard/keys', { name: 'own', scope: 'read' });
    expect(own.statusCode).toBe(200);
  });
});

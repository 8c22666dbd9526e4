// Review 925 (the merchant's dashboard, typed client and OpenAPI document): each finding shown through the real stack
// (the whole app through app.inject, a real database). Each test failed before its mend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBrowser } from '../support/dashboard.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';
import { listKeys } from '../../src/modules/accounts/keys.ts';
import { payByCard } from '../modules/transactions/helpers.ts';
import { nullify } from '../modules/refunds/helpers.ts';

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

async function userBrowser(accountId: string, email: string, role: string) {
  const out = await runOnContext(
    ['users', 'invite', '--account', accountId, '--email', email, '--role', role, '--json'],
    t.ctx,
  );
  expect(out.code, out.stderr).toBe(0);
  const link = new URL((JSON.parse(out.stdout) as { link: string }).link);
  const b = dashboardBrowser(t);
  expect((await b.get(`${link.pathname}${link.search}`)).statusCode).toBe(200);
  const password = 'correct horse battery';
  const res = await b.post('/dashboard/invite', {
    token: link.searchParams.get('token')!,
    password,
    password_again: password,
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
  return b;
}

describe('a developer, who may not move money, makes no key that does', () => {
  it('a key a developer makes in the dashboard cannot refund a sale', async () => {
    // Decision 541: only an admin moves money. A `payments` key refunds sales (POST /api/nullification takes the
    // money back out of the wallet to the payer's card) and concedes disputes: a developer who could make one
    // refunds an accomplice's purchase with it.
    const account = await t.createAccount('Tienda con desarrolladora');
    const { created } = await payByCard(t, account, { order: 'r925-1', amount: 30_000 });
    const developer = await userBrowser(account.id, 'dev-925@example.com', 'developer');
    const page = await developer.get('/dashboard/keys');
    const made = await developer.post('/dashboard/keys', { scope: 'payments', name: 'pagos' });
    const publicToken = /Token público: <code>([^<]+)<\/code>/.exec(made.body)?.[1];
    const privateToken = /Token privado: <code>([^<]+)<\/code>/.exec(made.body)?.[1];
    if (publicToken !== undefined && privateToken !== undefined) {
      const key = { id: account.id, publicToken, privateToken, webhookSecret: '' };
      const refund = await nullify(t, key, { id: created.id, amount: 30_000 });
      expect(refund.json(), 'a developer-made key refunded a sale').not.toMatchObject({
        status: 'success',
      });
    }
    expect(made.statusCode, 'a developer was allowed to create a payments key').toBe(403);
    expect(page.body).not.toContain('<option value="payments">');
    // A read key is still the developer's to make.
    await developer.get('/dashboard/keys');
    expect(
      (await developer.post('/dashboard/keys', { scope: 'read', name: 'lectura' })).statusCode,
    ).toBe(200);
  });
});

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

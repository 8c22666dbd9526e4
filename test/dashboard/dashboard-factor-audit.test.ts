// Decision 675: setting a password through an invitation link (POST /dashboard/invite, which has no session) and
// adding or replacing one's second factor (POST /dashboard/account/totp) are security changes of the account's users,
// and each leaves a row naming the user as actor. Before it, both committed with no audit row, while the other
// dashboard forms each left theirs through dashboardChange.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBrowser, type DashboardBrowser } from '../support/dashboard.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';
import { newTotpSecret, totpCode } from '../../src/dashboard/totp.ts';

let t: TestApp;
let account: TestAccount;
const password = 'correct horse battery';

async function dashboardRows() {
  return t.ctx.db
    .selectFrom('audit_log')
    .select(['action', 'actor', 'actor_kind'])
    .where('chain', '=', account.id)
    .where('actor_kind', '=', 'dashboard')
    .orderBy('seq')
    .execute();
}

async function invitedUser(email: string): Promise<{ b: DashboardBrowser; userId: string }> {
  const out = await runOnContext(
    ['users', 'invite', '--account', account.id, '--email', email, '--role', 'viewer', '--json'],
    t.ctx,
  );
  expect(out.code, out.stderr).toBe(0);
  const invited = JSON.parse(out.stdout) as { link: string; userId?: string; id?: string };
  const link = new URL(invited.link);
  const b = dashboardBrowser(t);
  expect((await b.get(`${link.pathname}${link.search}`)).statusCode).toBe(200);
  const res = await b.post('/dashboard/invite', {
    token: link.searchParams.get('token')!,
    password,
    password_again: password,
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
  const row = await t.ctx.db
    .selectFrom('dashboard_users')
    .select('id')
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  return { b, userId: row.id };
}

beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount('Factor audit');
}, 60_000);
afterAll(async () => {
  await t.close();
});

describe('dashboard security changes and the audit trail', () => {
  it('a user accepting an invitation (setting a password) leaves a row naming the user', async () => {
    const before = (await dashboardRows()).length;
    const { userId } = await invitedUser('newcomer@example.com');
    const rows = (await dashboardRows()).slice(before);
    expect(rows, 'the password was set through the dashboard with no audit row').toEqual([
      { action: 'POST /dashboard/invite', actor: `user:${userId}`, actor_kind: 'dashboard' },
    ]);
  });

  it('a user adding and replacing their second factor leaves one row each', async () => {
    const { b, userId } = await invitedUser('factor@example.com');
    const before = (await dashboardRows()).length;
    const page = await b.get('/dashboard/account/totp');
    const secret = /name="secret" value="([A-Z2-7]{32})"/.exec(page.body)![1]!;
    const added = await b.post('/dashboard/account/totp', {
      secret,
      code: totpCode(secret, t.clock.now()),
    });
    expect(added.statusCode).toBe(200);
    t.clock.advanceMs(30_000);
    const next = newTotpSecret();
    await b.get('/dashboard/account/totp');
    const replaced = await b.post('/dashboard/account/totp', {
      secret: next,
      code: totpCode(next, t.clock.now()),
      current_code: totpCode(secret, t.clock.now()),
    });
    expect(replaced.statusCode, replaced.body.slice(0, 300)).toBe(200);
    const rows = (await dashboardRows()).slice(before);
    expect(rows, 'the second factor was added and replaced with no audit row').toEqual([
      { action: 'POST /dashboard/account/totp', actor: `user:${userId}`, actor_kind: 'dashboard' },
      { action: 'POST /dashboard/account/totp', actor: `user:${userId}`, actor_kind: 'dashboard' },
    ]);
  });
});

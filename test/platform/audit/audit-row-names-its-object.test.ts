// Decision 675: a row of an operator's or a dashboard's change that makes or changes one user or key names that user
// or key. Before it, `cobro users invite` and `cobro users reset` named only the account (the trail could not tell
// which user lost their password and second factor), and `cobro keys create` and the dashboard's key form named no
// key (key-pages.ts passed null: the key's id exists only once the form's work made it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBrowser } from '../../support/dashboard.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { runOnContext } from '../../support/cli-in-process.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount('Named objects');
}, 60_000);
afterAll(async () => {
  await t.close();
});

async function cli(...args: string[]) {
  const out = await runOnContext(args, t.ctx);
  expect(out.code, out.stderr).toBe(0);
  return out.stdout;
}

async function lastRow(action: string) {
  return t.ctx.db
    .selectFrom('audit_log')
    .select(['chain', 'target'])
    .where('action', '=', action)
    .orderBy('seq', 'desc')
    .executeTakeFirstOrThrow();
}

describe('an audit row names the object changed', () => {
  it('cobro users invite and cobro users reset name the user, not only the account', async () => {
    const email = 'reset-me@example.com';
    await cli('users', 'invite', '--account', account.id, '--email', email, '--role', 'admin');
    const user = await t.ctx.db
      .selectFrom('dashboard_users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    const invited = await lastRow('cobro users invite');
    expect(invited.chain).toBe(account.id);
    expect([user.id, email], 'the invite row does not say which user').toContain(invited.target);
    await cli('users', 'reset', '--account', account.id, '--email', email);
    const reset = await lastRow('cobro users reset');
    expect(reset.chain).toBe(account.id);
    expect([user.id, email], 'the reset row does not say which user was reset').toContain(
      reset.target,
    );
  });

  it('cobro keys create names the key it made', async () => {
    const made = JSON.parse(
      await cli('keys', 'create', '--account', account.id, '--scope', 'read', '--json'),
    ) as { id: string };
    expect((await lastRow('cobro keys create')).target).toBe(made.id);
  });

  it("the dashboard's key form names the key it made", async () => {
    const b = dashboardBrowser(t);
    await b.signIn(account);
    await b.get('/dashboard/keys');
    const res = await b.post('/dashboard/keys', { scope: 'read', name: 'informes' });
    expect(res.statusCode).toBe(200);
    const keys = await t.ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', account.id)
      .where('name', '=', 'informes')
      .execute();
    expect(keys).toHaveLength(1);
    expect((await lastRow('POST /dashboard/keys')).target).toBe(keys[0]!.id);
  });
});

// Decision 740: what the fixes of the authz review keep and add beyond the reviewer's own tests: a rotation kills
// pending invitation links, `cobro users remove` takes a user out with its sessions, and only a never-accepted
// invitation of another account gives its e-mail way (a reset user keeps it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBrowser } from '../support/dashboard.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';

let t: TestApp;
const password = 'correct horse battery';

async function invite(account: TestAccount, email: string, ctx = t.ctx): Promise<URL> {
  const out = await runOnContext(
    ['users', 'invite', '--account', account.id, '--email', email, '--role', 'viewer', '--json'],
    ctx,
  );
  expect(out.code, out.stderr).toBe(0);
  return new URL((JSON.parse(out.stdout) as { link: string }).link);
}

async function accept(link: URL) {
  const b = dashboardBrowser(t);
  const page = await b.get(`${link.pathname}${link.search}`);
  if (page.statusCode !== 200) return { b, status: page.statusCode };
  const res = await b.post('/dashboard/invite', {
    token: link.searchParams.get('token')!,
    password,
    password_again: password,
  });
  return { b, status: res.statusCode };
}

beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

describe('rotation and removal', () => {
  it('a rotation kills a pending invitation link', async () => {
    const account = await t.createAccount('Invitación pendiente');
    const link = await invite(account, 'pending-rotated@example.com');
    const rotated = await runOnContext(['accounts', 'rotate', account.id], t.ctx);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect((await accept(link)).status).toBe(404);
  });

  it('cobro users remove ends the removed user and their sessions, and refuses an unknown e-mail', async () => {
    const account = await t.createAccount('Quitar usuario');
    const { b, status } = await accept(await invite(account, 'removed@example.com'));
    expect(status).toBe(303);
    expect((await b.get('/dashboard')).statusCode).toBe(200);
    const removed = await runOnContext(
      ['users', 'remove', '--account', account.id, '--email', 'Removed@example.com'],
      t.ctx,
    );
    expect(removed.code, removed.stderr).toBe(0);
    expect((await b.get('/dashboard')).statusCode).toBe(303);
    const again = await runOnContext(
      ['users', 'remove', '--account', account.id, '--email', 'removed@example.com'],
      t.ctx,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no user with the e-mail');
  });

  it('cobro users reset and remove refuse a missing --account or --email with exit 2', async () => {
    const account = await t.createAccount('Sin correo');
    for (const verb of ['reset', 'remove']) {
      for (const args of [
        ['--account', account.id],
        ['--email', 'x@example.com'],
      ]) {
        const out = await runOnContext(['users', verb, ...args], t.ctx);
        expect(out.code, `${verb} ${args.join(' ')}`).toBe(2);
        expect(out.stderr).toContain('--account and --email are required');
      }
    }
  });
});

describe("another account's e-mail", () => {
  it('a live invitation, and a reset user whose link expired, keep their e-mail', async () => {
    const holder = await t.createAccount('Dueña del correo');
    const other = await t.createAccount('Otra cuenta');
    await invite(holder, 'live@example.com');
    expect((await accept(await invite(holder, 'reset@example.com'))).status).toBe(303);
    const reset = await runOnContext(
      ['users', 'reset', '--account', holder.id, '--email', 'reset@example.com'],
      t.ctx,
    );
    expect(reset.code, reset.stderr).toBe(0);
    const live = await runOnContext(
      ['users', 'invite', '--account', other.id, '--email', 'live@example.com', '--role', 'owner'],
      t.ctx,
    );
    expect(live.stderr).toContain('already exists');
    const later = await startTestApp({
      sharing: t,
      clockStart: new Date(t.clock.now().getTime() + 48 * 3600 * 1000).toISOString(),
    });
    try {
      const taken = await runOnContext(
        [
          'users',
          'invite',
          '--account',
          other.id,
          '--email',
          'reset@example.com',
          '--role',
          'owner',
        ],
        later.ctx,
      );
      expect(taken.stderr, 'a reset user is a user of their account').toContain('already exists');
    } finally {
      await later.close();
    }
  });
});

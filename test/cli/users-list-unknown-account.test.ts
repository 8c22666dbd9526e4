// Decision 810: `cobro users list --account` of an account that does not exist printed `no users` with exit 0,
// where `cobro keys list` refuses it with exit 1: a mistyped id read as an account nobody can sign in to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('cobro users list --account', () => {
  it('refuses an account that does not exist as keys list does', async () => {
    const unknown = 'acc00000000000000000';
    const users = await runOnContext(['users', 'list', '--account', unknown], t.ctx);
    const keys = await runOnContext(['keys', 'list', '--account', unknown], t.ctx);
    expect(keys).toEqual({ code: 1, stdout: '', stderr: `no account with id ${unknown}\n` });
    expect(users).toEqual(keys);
    expect(
      (await runOnContext(['users', 'list', '--account', unknown, '--json'], t.ctx)).code,
    ).toBe(1);
    // An account that exists with no users is still `no users`.
    const account = await t.createAccount('Sin usuarios');
    expect(await runOnContext(['users', 'list', '--account', account.id], t.ctx)).toEqual({
      code: 0,
      stdout: 'no users\n',
      stderr: '',
    });
  });
});

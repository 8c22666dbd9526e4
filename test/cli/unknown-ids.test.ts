// Decision 1155: an unknown id is the operator's input mistake about the data, not about the command line, so every
// command answers it the same way: `no <thing> with id ...` on stderr, nothing on stdout, exit 1 (docs/operations.md's
// exit codes). Before, `refunds resolve`, `refunds record-external` and `subscriptions retry-removal` exited 2, and
// the lists that take --account printed an empty list with exit 0 for an account that does not exist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';
import { keyLimits } from '../../src/limits/index.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const acc = 'acc00000000000000000';
const cases: readonly (readonly [string, readonly string[], RegExp])[] = [
  [
    'refunds resolve',
    ['refunds', 'resolve', 'nul00000000000000000000', '--outcome', 'failed'],
    /nul0+/,
  ],
  [
    'refunds record-external',
    ['refunds', 'record-external', 'tr00000000000000000000', '--amount', '1', '--reference', 'r'],
    /tr0+/,
  ],
  [
    'subscriptions retry-removal',
    ['subscriptions', 'retry-removal', 'sure0000000000000000000'],
    /sure0+/,
  ],
  ['refunds show', ['refunds', 'show', 'nul00000000000000000000'], /nul0+/],
  ['notifications show', ['notifications', 'show', 'ntf00000000000000000'], /ntf0+/],
  [
    'notifications list --account',
    ['notifications', 'list', '--account', acc],
    /^no account with id acc0+$/,
  ],
  ['refunds list --account', ['refunds', 'list', '--account', acc], /^no account with id acc0+$/],
  [
    'subscriptions list --account',
    ['subscriptions', 'list', '--account', acc],
    /^no account with id acc0+$/,
  ],
  [
    'subscriptions removals --account',
    ['subscriptions', 'removals', '--account', acc],
    /^no account with id acc0+$/,
  ],
  ['plans list --account', ['plans', 'list', '--account', acc], /^no account with id acc0+$/],
  ['audit list --account', ['audit', 'list', '--account', acc], /^no account with id acc0+$/],
  ['users list --account', ['users', 'list', '--account', acc], /^no account with id acc0+$/],
  ['keys list --account', ['keys', 'list', '--account', acc], /^no account with id acc0+$/],
  [
    'keys create --account',
    ['keys', 'create', '--account', acc, '--scope', 'read'],
    /^no (active )?account with id acc0+$/,
  ],
  [
    'fintoc reconcile --account',
    ['fintoc', 'reconcile', '--account', acc],
    /^no account with id acc0+$/,
  ],
  [
    'wallet credit --account',
    ['wallet', 'credit', '--account', acc, '--amount', '1', '--reason', 'r', '--key', 'K-1'],
    /^no account with id acc0+$/,
  ],
];

describe('an unknown id, in every command that takes one', () => {
  it.each(cases)(
    '%s: one line naming it, exit 1, nothing on stdout',
    async (_name, args, message) => {
      for (const json of [[], ['--json']]) {
        const out = await runOnContext([...args, ...json], t.ctx);
        expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(1);
        expect(out.stdout).toBe('');
        expect(out.stderr.trim()).toMatch(message);
        expect(out.stderr.trim().split('\n')).toHaveLength(1);
      }
    },
  );

  it('a list for an account that exists but has nothing is still an empty list, exit 0', async () => {
    const a = await t.createAccount();
    for (const args of [
      ['notifications', 'list'],
      ['refunds', 'list'],
      ['subscriptions', 'list'],
      ['subscriptions', 'removals'],
      ['plans', 'list'],
    ]) {
      const out = await runOnContext([...args, '--account', a.id], t.ctx);
      expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
    }
  });
});

// Decision 1175: an account that exists but is suspended (status `disabled`) is a refused business action, not a
// usage error: exit 1, as an unknown id (decision 1155). It exited 2 before.
describe('keys create for a suspended account', () => {
  it('is refused with exit 1 and makes no key', async () => {
    const a = await t.createAccount();
    await t.ctx.db
      .updateTable('accounts')
      .set({ status: 'disabled' })
      .where('id', '=', a.id)
      .execute();
    const keysBefore = await t.ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', a.id)
      .execute();
    const out = await runOnContext(['keys', 'create', '--account', a.id, '--scope', 'read'], t.ctx);
    expect([out.code, out.stdout, out.stderr.trim()]).toEqual([
      1,
      '',
      `no active account with id ${a.id}`,
    ]);
    const keysAfter = await t.ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', a.id)
      .execute();
    expect(keysAfter).toEqual(keysBefore);
  });

  it('an account holding its most keys is refused with exit 1 too; a bad scope stays a usage error (2)', async () => {
    const a = await t.createAccount();
    const create = () =>
      runOnContext(['keys', 'create', '--account', a.id, '--scope', 'read'], t.ctx);
    let out = await create();
    for (let i = 0; out.code === 0 && i < keyLimits.keysPerAccountMax; i++) out = await create();
    expect([out.code, out.stderr.trim()]).toEqual([
      1,
      `the account already holds ${keyLimits.keysPerAccountMax} keys: revoke one first`,
    ]);
    const scope = await runOnContext(
      ['keys', 'create', '--account', a.id, '--scope', 'all'],
      t.ctx,
    );
    expect(scope.code).toBe(2);
  });
});

// `cobro sign` with a query given in parts or with a key given twice (decision 725): the CLI's parser kept only the
// last `--query`, and a key given twice in the query was signed with its last value, while the server reads such a
// key as a list and leaves it out of `Sign`. Each call below goes to the real server with the Sign the CLI printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { runCli } from '../support/cli.ts';
import { resolve } from '../../src/cli/dispatch.ts';

describe('cobro sign with a repeated --query', () => {
  let t: TestApp;
  let account: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    account = await t.createAccount('Sign repeated query');
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The server's answer to GET `url` signed by `cobro sign` run with `args`. */
  async function callSignedBy(url: string, args: readonly string[]) {
    const signed = await runCli(['sign', '--token', account.privateToken, ...args], {});
    expect(signed.code, signed.stderr).toBe(0);
    return t.app.inject({
      method: 'GET',
      url,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${account.publicToken}`,
        sign: signed.stdout.trim(),
      },
    });
  }

  it('two --query parts are signed together, as the query the server gets', async () => {
    const res = await callSignedBy('/api/wallet/list?page=1&per_page=10', [
      '--path',
      '/api/wallet/list',
      '--query',
      'page=1',
      '--query',
      'per_page=10',
    ]);
    // Before: only `per_page=10` was signed, and the server answered `invalid sign`.
    expect(res.statusCode, res.body).toBe(200);
  });

  it('a key given twice, in --path or in two --query, signs as the server reads it', async () => {
    for (const args of [
      ['--path', '/api/wallet/list?per_page=10&per_page=20'],
      ['--path', '/api/wallet/list', '--query', 'per_page=10', '--query', 'per_page=20'],
    ]) {
      const res = await callSignedBy('/api/wallet/list?per_page=10&per_page=20', args);
      // Whatever the route makes of the list, the Sign passed: before, it was signed with `per_page=20`.
      expect(res.statusCode, res.body).not.toBe(401);
    }
  });

  it('the parser collects every value of a repeatable option, in order', () => {
    const resolved = resolve([
      'sign',
      '--token',
      'x',
      '--path',
      '/p',
      '--query',
      'a=1',
      '--query=b=2',
    ]);
    expect('command' in resolved && resolved.args.values.query).toEqual(['a=1', 'b=2']);
    const once = resolve(['sign', '--token', 'x', '--path', '/p', '--token', 'y']);
    // A string option not marked repeatable keeps commander's rule: the last one given.
    expect('command' in once && once.args.values.token).toBe('y');
  });
});

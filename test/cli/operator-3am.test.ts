// What an operator meets at 3 a.m. (decision 1145): a command that fails says so in one line on stderr, never a log
// line or a stack on stdout (scripts pipe `--json` into jq), a refusal of the service reads as one, and a bound
// given out of range is a usage error (exit 2) like any other odd value, with nothing changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { runCli, type CliResult } from '../support/cli.ts';
import { dataDirSeeder } from '../support/cli-in-process.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { dispatch, resolve, runResolved } from '../../src/cli/dispatch.ts';
import type { Command } from '../../src/cli/command.ts';

vi.setConfig({ testTimeout: 120_000 });

const dirs: string[] = [];
function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-3am-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const seedDataDir = dataDirSeeder(dataDir());

function expectOneLineError(result: CliResult, pattern: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  expect(result.stderr).toMatch(pattern);
}

describe('a command that fails, as a real process', () => {
  it('keeps stdout for the answer: no log line, no stack, with or without --json', async () => {
    const env = { DATA_DIR: dataDir() };
    await seedDataDir(env.DATA_DIR);
    // The service refuses an unknown dispute by throwing its API error: it used to reach the catch-all, which logged
    // it (a JSON line with the stack) on stdout before `disputes resolve failed: ...` on stderr.
    const json = await runCli(
      ['disputes', 'resolve', 'dsp0a1b2c3d4e5f6a7b8c9d', '--outcome', 'won', '--json'],
      env,
    );
    expectOneLineError(json, /^disputes resolve: dispute not found\n$/);
    const open = await runCli(
      [
        'disputes',
        'open',
        '--transaction',
        'trx0a1b2c3d4e5f6a7b8c',
        '--amount',
        '5000',
        '--reason',
        'fraud',
        '--key',
        'CB-2026-0114',
      ],
      env,
    );
    expectOneLineError(open, /^disputes open: transaction not found\n$/);
  });
});

describe('a command that fails, in process', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  /** `ledger verify`'s resolution with a run of the test's own, so a failure can be thrown where a command runs. */
  function throwing(error: unknown) {
    const resolved = resolve(['ledger', 'verify']);
    if (!('command' in resolved)) throw new Error('ledger verify did not resolve');
    const command: Command = {
      ...resolved.command,
      run: () => Promise.reject(error),
    };
    return { ...resolved, command };
  }

  it('a database that stops answering mid-command is named, with what to do', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const out = await runResolved(throwing(refused), t.ctx);
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe(
      'ledger verify: the database stopped answering (connect ECONNREFUSED 127.0.0.1:5432): the command may not have finished; once it answers, see what it did (`cobro audit list --account ID`) before running it again\n',
    );
  });

  it("a bug in the CLI's own process is one line there, its stack left to LOG_LEVEL=debug", async () => {
    const out = await runResolved(throwing(new TypeError('boom')), t.ctx, undefined, 'debug');
    expect([out.exitCode, out.stdout, out.stderr]).toEqual([
      1,
      '',
      'ledger verify failed: boom (LOG_LEVEL=debug shows the stack)\n',
    ]);
  });

  it('a grace past its bound is a usage error (exit 2), and nothing rotates', async () => {
    const a = await t.createAccount();
    const tokenBefore = async () =>
      (
        await sql<{
          h: string;
        }>`select public_token_hash as h from accounts where id = ${a.id}`.execute(t.ctx.db)
      ).rows[0]!.h;
    const before = await tokenBefore();
    for (const [args, message] of [
      [['--grace-hours', '721'], '--grace-hours must be a whole number from 0 to 720\n'],
      [
        ['--only', 'webhook-secret', '--webhook-grace-hours', '73'],
        '--webhook-grace-hours must be a whole number from 0 to 72\n',
      ],
    ] as const) {
      const out = await dispatch(['accounts', 'rotate', a.id, ...args], t.ctx);
      expect(out.stderr).toBe(message);
      expect(out.exitCode).toBe(2);
    }
    expect(await tokenBefore()).toBe(before);
    const key = JSON.parse(
      (await dispatch(['keys', 'create', '--account', a.id, '--scope', 'read', '--json'], t.ctx))
        .stdout,
    ) as { id: string };
    const rotated = await dispatch(['keys', 'rotate', key.id, '--grace-hours', '100000'], t.ctx);
    expect(rotated.stderr).toBe('--grace-hours must be a whole number from 0 to 720\n');
    expect(rotated.exitCode).toBe(2);
  });

  it('users token-sign-in names an account that does not exist', async () => {
    const out = await dispatch(
      ['users', 'token-sign-in', '--account', 'acc0000000000000000x', 'off'],
      t.ctx,
    );
    expect(out.stderr).toBe('no account with id acc0000000000000000x\n');
    expect(out.exitCode).toBe(1);
  });
});

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { computeSign } from '../../src/platform/auth/sign.ts';
import { opsSocketPath, runThroughServer } from '../../src/cli/ops-socket.ts';
import { runCli, startServe, type CliResult } from '../support/cli.ts';
import { dataDirSeeder, openCliRuntime, runInProcess } from '../support/cli-in-process.ts';
import { freePort } from '../support/net.ts';

const dirs: string[] = [];
function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-cli-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const seedDataDir = dataDirSeeder(dataDir());
// Each kind of command path runs at least once as a real process (a no-database command, a usage error, a
// configuration error, a database command on the embedded database, one through the serving process's operator
// socket, `serve` itself, and PostgreSQL); the further calls of a kind run in this process through the same
// resolution and command code (runInProcess), which spares a Node start and a database open per call.
// Real processes opening real databases: generous limits for a loaded CI machine.
vi.setConfig({ testTimeout: 180_000 });

/** Runs `cobro` commands in this process against the database in `env` (opened once), then closes it. */
async function inProcess<T>(
  env: Record<string, string>,
  use: (run: (args: readonly string[]) => Promise<CliResult>) => Promise<T>,
): Promise<T> {
  const runtime = await openCliRuntime(env);
  try {
    return await use((args) => runInProcess(args, runtime));
  } finally {
    await runtime.close();
  }
}

describe('cobro CLI on the embedded database', () => {
  it('creates, lists, shows and rotates accounts', async () => {
    // A migrated database already in place: first starts on an empty directory are first-start.test.ts's.
    const env = { DATA_DIR: dataDir() };
    await seedDataDir(env.DATA_DIR);
    const created = await runCli(['accounts', 'create', '--name', 'Tienda Uno', '--json'], env);
    expect(created.code).toBe(0);
    const account = JSON.parse(created.stdout) as Record<string, string>;
    expect(account.id).toMatch(/^acc[0-9a-f]{17}$/);
    expect(account.public_token).toMatch(/^[0-9a-f]{32}$/);
    expect(account.private_token).toMatch(/^[0-9a-f]{32}$/);
    expect(account.webhook_secret).toMatch(/^whsec_/);

    // The same database and secret key, opened by this process once the command's process has exited.
    await inProcess(env, async (run) => {
      const list = await run(['accounts', 'list']);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(account.id);
      expect(list.stdout).toContain('Tienda Uno');

      const shown = JSON.parse(
        (await run(['accounts', 'show', account.id!, '--json'])).stdout,
      ) as Record<string, string>;
      expect(shown.private_token).toBe(account.private_token);

      const rotated = JSON.parse(
        (await run(['accounts', 'rotate', account.id!, '--only', 'webhook-secret', '--json']))
          .stdout,
      ) as Record<string, string>;
      expect(rotated.webhook_secret).not.toBe(account.webhook_secret);
      expect(rotated.public_token).toBe(account.public_token);

      const missing = await run(['accounts', 'show', 'acc_nope']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('no account');
    });
  });

  it('prints the Sign header a client would compute', async () => {
    const body = '{"amount":1000,"currency":"CLP","order":"133222","subject":"withdraw 133222"}';
    const res = await runCli(
      [
        'sign',
        '--token',
        'fe551abcef62fcf002dc598922e68f0a',
        '--path',
        '/api/wallet/withdraw',
        '--body',
        body,
      ],
      {},
    );
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe(
      '3ad64ab75fd70884ce4673b88d0cc019aaa5cc8f68925fb1295bdb91b5970b2d',
    );
    const q = await runInProcess(
      ['sign', '--token', 'k', '--path', '/api/wallet/list', '--query', 'page=1&per_page=10'],
      null,
    );
    expect(q.stdout.trim()).toBe(
      computeSign('k', '/api/wallet/list', { page: '1', per_page: '10' }),
    );
    const bad = await runInProcess(['sign', '--token', 'k', '--path', '/x', '--body', '[1]'], null);
    expect(bad.code).toBe(2);
  });

  it('rejects unknown commands, unknown options and bad configuration clearly', async () => {
    const unknown = await runInProcess(['frobnicate'], null);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command');
    const option = await runCli(['accounts', 'list', '--bogus'], { DATA_DIR: dataDir() });
    expect(option.code).toBe(2);
    const config = await runCli(['accounts', 'list'], {
      DATA_DIR: dataDir(),
      PORT: 'eighty',
      COBRO_MODE: 'live',
    });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('PORT must be an integer');
    expect(config.stderr).toContain('COBRO_MODE must be one of sandbox, production');
  });

  it('serves the API, prints the demo tokens once, and takes CLI commands while serving', async () => {
    // A migrated database without accounts (the suite's snapshot on PGlite): the demo account is made on a start
    // that finds none, so it is still this start's; a start on an empty DATA_DIR is first-start.test.ts's and
    // fresh-starts.test.ts's.
    const dir = dataDir();
    await seedDataDir(dir);
    const port = await freePort();
    const env = { DATA_DIR: dir, PORT: String(port) };
    const server = await startServe(env);
    try {
      const out = server.output();
      expect(out).toContain('Sandbox demo account created');
      const publicToken = /public token:\s+([0-9a-f]{32})/.exec(out)?.[1];
      const privateToken = /private token:\s+([0-9a-f]{32})/.exec(out)?.[1];
      expect(publicToken).toBeDefined();
      const base = `http://127.0.0.1:${port}`;
      const banks = await fetch(`${base}/api/banks?currency=clp`);
      expect(banks.status).toBe(200);
      const who = await fetch(`${base}/api/account`, {
        headers: {
          authorization: `Bearer ${publicToken}`,
          sign: computeSign(privateToken!, '/api/account', {}),
        },
      });
      expect(await who.json()).toMatchObject({ status: 'success', name: 'Demo merchant' });

      // The embedded database belongs to the server; the CLI goes through its operator socket.
      const created = await runCli(
        ['accounts', 'create', '--name', 'While serving', '--json'],
        env,
      );
      expect(created.code).toBe(0);
      const fresh = JSON.parse(created.stdout) as Record<string, string>;
      const freshWho = await fetch(`${base}/api/account`, {
        headers: {
          authorization: `Bearer ${fresh.public_token}`,
          sign: computeSign(fresh.private_token!, '/api/account', {}),
        },
      });
      expect(freshWho.status).toBe(200);
      // The client side of the socket, as main.ts runs it when a server answers.
      expect((await runThroughServer(opsSocketPath(dir), ['migrate'])).stdout).toContain(
        'up to date',
      );

      // A second `serve` on the same DATA_DIR (on another port) is refused in one line and leaves the first serving.
      const second = await runCli(['serve'], { ...env, PORT: String(await freePort()) });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(
        new RegExp(
          `^cobro: DATA_DIR .+ is in use by another cobro process \\(pid ${server.child.pid}\\)[^\\n]*\\n$`,
        ),
      );
      expect((await fetch(`${base}/api/banks?currency=clp`)).status).toBe(200);
    } finally {
      await server.stop();
    }
    // A second start on the same data does not create or print another demo account.
    const again = await startServe(env);
    await again.stop();
    expect(again.output()).not.toContain('Sandbox demo account created');
    const list = await inProcess(env, (run) => run(['accounts', 'list', '--json']));
    expect((JSON.parse(list.stdout) as unknown[]).length).toBe(2);
  });
});

describe.runIf(process.env.DATABASE_URL)('cobro CLI on PostgreSQL', () => {
  it('migrates and manages accounts through DATABASE_URL', async () => {
    const adminUrl = process.env.DATABASE_URL!;
    const name = `cobro_t_cli_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      const u = new URL(adminUrl);
      u.pathname = `/${name}`;
      const env = { DATABASE_URL: u.toString(), DATA_DIR: dataDir() };
      const migrated = await runCli(['migrate'], env);
      expect(migrated.code).toBe(0);
      expect(migrated.stdout).toContain('applied: 0001-foundation');
      const created = JSON.parse(
        (await runCli(['accounts', 'create', '--name', 'PG merchant', '--json'], env)).stdout,
      ) as Record<string, string>;
      const list = await inProcess(env, (run) => run(['accounts', 'list']));
      expect(list.stdout).toContain(created.id);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});

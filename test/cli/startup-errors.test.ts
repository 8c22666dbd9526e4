// Start-up errors an operator meets (issue 15 point 6): the real `cobro` process prints one line on stderr, no stack,
// exits non-zero, and leaves nothing behind (no database, no key file, no demo account) when it cannot start.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { lockDataDir } from '../../src/platform/db/data-dir-lock.ts';
import { StartupError } from '../../src/platform/process/startup-error.ts';
import { runCli, type CliResult } from '../support/cli.ts';

vi.setConfig({ testTimeout: 120_000 });

const dirs: string[] = [];
/** A DATA_DIR path that does not exist yet, so a test can see whether a failed start created it. */
function freshDataDir(): string {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-start-'));
  dirs.push(parent);
  return path.join(parent, 'data');
}
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function expectOneLine(result: CliResult, code: number, pattern: RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n')).toBe(true);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(/^cobro: /);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).toMatch(pattern);
}

describe('cobro serve start-up errors', () => {
  it('a port in use: one line, and DATA_DIR is never created', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const dir = freshDataDir();
      const result = await runCli(['serve'], { DATA_DIR: dir, PORT: String(port) });
      expectOneLine(
        result,
        1,
        new RegExp(`^cobro: port ${port} on 127\\.0\\.0\\.1 is already in use .*set PORT`),
      );
      // No database, no key file, no demo account: the start stopped before opening anything.
      expect(fs.existsSync(dir)).toBe(false);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('an unreachable DATABASE_URL: one line naming it without its password', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const dir = freshDataDir();
    const url = `postgres://cobro:s3cret@127.0.0.1:${port}/cobro`;
    const serve = await runCli(['serve'], { DATA_DIR: dir, PORT: '0', DATABASE_URL: url });
    expectOneLine(
      serve,
      1,
      new RegExp(
        `^cobro: cannot reach the database at postgres://cobro:\\*\\*\\*@127\\.0\\.0\\.1:${port}/cobro: .*ECONNREFUSED`,
      ),
    );
    expect(serve.stderr).not.toContain('s3cret');
    // The worker and the operator commands open the database the same way.
    const worker = await runCli(['worker'], { DATABASE_URL: url });
    expectOneLine(worker, 1, /^cobro: cannot reach the database at /);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('a missing production key: one line, even when COBRO_SECRET_KEY is set but empty', async () => {
    for (const key of [undefined, '']) {
      const dir = freshDataDir();
      const env: Record<string, string> = {
        DATA_DIR: dir,
        PORT: '0',
        COBRO_MODE: 'production',
        PUBLIC_BASE_URL: 'https://pay.example.com',
        ...(key === undefined ? {} : { COBRO_SECRET_KEY: key }),
      };
      const result = await runCli(['serve'], env);
      expectOneLine(
        result,
        2,
        /^cobro: configuration error: COBRO_SECRET_KEY is required in production mode/,
      );
      expect(fs.existsSync(dir)).toBe(false);
    }
  });

  it('an http PUBLIC_BASE_URL in production: one line naming the variable that allows it (decision 440)', async () => {
    for (const base of [undefined, 'http://pay.example.com']) {
      const dir = freshDataDir();
      const env: Record<string, string> = {
        DATA_DIR: dir,
        PORT: '0',
        COBRO_MODE: 'production',
        COBRO_SECRET_KEY: 'ab'.repeat(32),
        ...(base === undefined ? {} : { PUBLIC_BASE_URL: base }),
      };
      const result = await runCli(['serve'], env);
      expectOneLine(
        result,
        2,
        /^cobro: configuration error: PUBLIC_BASE_URL must be https in production mode, got "http:\/\/.*" \(set COBRO_ALLOW_INSECURE_PUBLIC_URL=1 only for local testing behind a TLS-terminating proxy\)\n?$/,
      );
      expect(fs.existsSync(dir)).toBe(false);
    }
  });
});

describe('a trusted callback origin naming accounts (decision 987)', () => {
  it('refuses, in one line, a start whose origin names an account the database does not hold', async () => {
    const missing = 'acc0123456789abcdef0';
    const result = await runCli(['serve'], {
      DATA_DIR: freshDataDir(),
      PORT: '0',
      COBRO_MODE: 'production',
      COBRO_SECRET_KEY: 'ab'.repeat(32),
      PUBLIC_BASE_URL: 'https://pay.example.com',
      CALLBACK_TRUSTED_ORIGINS: `https://erp.internal:8443@${missing}`,
    });
    expectOneLine(
      result,
      1,
      new RegExp(
        `^cobro: CALLBACK_TRUSTED_ORIGINS names ${missing}, which this database holds no account of: name the ids \`cobro accounts list\` shows`,
      ),
    );
  });
});

describe('the DATA_DIR lock', () => {
  it('refuses a directory held by a live process and takes over one left by a dead process', () => {
    const dir = freshDataDir();
    const lockFile = path.join(dir, 'cobro.lock');
    fs.mkdirSync(dir, { recursive: true });
    // Held by a live process other than this one: pid 1 always runs.
    fs.writeFileSync(lockFile, '1\n');
    expect(() => lockDataDir(dir)).toThrow(StartupError);
    expect(() => lockDataDir(dir)).toThrow(/is in use by another cobro process \(pid 1\)/);
    // Left by a process that is gone (kill -9): a pid beyond the system's range never runs.
    fs.writeFileSync(lockFile, '4294967294\n');
    const lock = lockDataDir(dir);
    expect(fs.readFileSync(lockFile, 'utf8')).toBe(`${process.pid}\n`);
    // Released, the file is gone and the directory free again.
    lock.release();
    expect(fs.existsSync(lockFile)).toBe(false);
    lockDataDir(dir).release();
  });
});

// The embedded engine's outage (decision 420): DATA_DIR's disk fills up under a real `cobro serve` on PGlite. The
// data directory lives on a tmpfs of its own (mounted by the test, so it needs root; skipped with the reason where
// mounting is not allowed). While the file system has less free space than the guard keeps, writes answer 503 with
// Retry-After and /readyz says so, reads still answer; once space returns, the same process takes the same requests
// again (same Idempotency-Key, same order) within seconds, each effect exists once, every acknowledged payout's
// callback arrives, and `cobro ledger verify` is clean.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { computeSign } from '../../src/platform/auth/sign.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { limits } from '../../src/limits/index.ts';
import { diskAlmostFull } from '../../src/platform/errors/errors.ts';
import { runCli, startServe } from '../support/cli.ts';
import { freePort } from '../support/net.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { demoCredentials, sleep, type Credentials } from './load.ts';

/** The tmpfs: the migrated database (about 40 MB with its WAL) plus the guard's reserve and room to spare. */
const tmpfsMb = 160;
/** What the filler leaves free: under the guard's reserve. */
const leftFreeBytes = limits.dataDirFreeBytesMin / 2;

function mountSkipReason(): string | null {
  if (process.env.DATABASE_URL !== undefined)
    return 'the embedded engine only (DATABASE_URL is set)';
  if (process.getuid?.() !== 0) return 'mounting a tmpfs for DATA_DIR needs root';
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return null;
  } catch {
    return 'mount is not permitted here';
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

interface Sent {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly json: Record<string, unknown>;
}

async function post(
  baseUrl: string,
  who: Credentials,
  url: string,
  body: Record<string, unknown>,
  key: string | null,
): Promise<Sent> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    authorization: `Bearer ${who.publicToken}`,
    sign: computeSign(who.privateToken, url, body),
  };
  if (key !== null) headers['idempotency-key'] = key;
  const res = await fetch(`${baseUrl}${url}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    json: JSON.parse(await res.text()) as Record<string, unknown>,
  };
}

const payout = (order: string, notifyUrl: string) => ({
  email: 'johndoe@example.com',
  subject: 'Disk full payout',
  currency: 'CLP',
  order,
  amount: 1000,
  url_notify: `${notifyUrl}/payout`,
  accountbank_name: 'Jhon Doe',
  accountbank_rut: '111111111',
  accountbank_sbif: '0001',
  accountbank_type: '1',
  accountbank_num: '12312312312',
});
const create = (order: string) => ({
  email: 'payer@example.com',
  order,
  subject: 'Disk full',
  amount: 1500,
});

async function readyzIs(baseUrl: string, status: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = await fetch(`${baseUrl}/readyz`).then(
      (res) => res.status,
      () => 0,
    );
    if (last === status) return;
    await sleep(100);
  }
  throw new Error(`/readyz still ${last}, not ${status}, after ${withinMs} ms`);
}

async function scenario(dataDir: string, mount: string, receiver: Receiver): Promise<void> {
  const env = { DATA_DIR: dataDir, PORT: String(await freePort()), COBRO_MODE: 'sandbox' };
  const baseUrl = `http://127.0.0.1:${env.PORT}`;
  const server = await startServe(env);
  const pid = server.child.pid;
  const who = demoCredentials(server.output());
  try {
    const funded = await post(
      baseUrl,
      who,
      '/api/sandbox/wallet/credit',
      { amount: 100_000, currency: 'CLP', reason: 'disk full' },
      null,
    );
    expect(funded.status).toBe(200);
    const before = await post(
      baseUrl,
      who,
      '/api/wallet/payout',
      payout('before', receiver.url),
      null,
    );
    expect(before.json.status).toBe('success');

    const filler = path.join(mount, 'filler');
    const freeBytes = (() => {
      const s = fs.statfsSync(mount);
      return s.bavail * s.bsize;
    })();
    execFileSync('fallocate', ['-l', String(freeBytes - leftFreeBytes), filler]);
    await readyzIs(baseUrl, 503, 5_000);
    const refused = [
      await post(baseUrl, who, '/api/transaction', create('during'), 'key-during'),
      await post(baseUrl, who, '/api/wallet/payout', payout('during', receiver.url), null),
    ];
    for (const r of refused) {
      expect(r.status, JSON.stringify(r.json)).toBe(503);
      expect(r.retryAfter).toBe(String(limits.dbUnavailableRetryAfterS));
      expect(r.json).toEqual({
        status: 'failed',
        type: 'Service Unavailable',
        message_error: diskAlmostFull,
      });
    }
    // Reads still answer.
    const wallet = await fetch(`${baseUrl}/api/wallet?currency=CLP`, {
      headers: {
        authorization: `Bearer ${who.publicToken}`,
        sign: computeSign(who.privateToken, '/api/wallet', { currency: 'CLP' }),
      },
    });
    expect(wallet.status).toBe(200);

    fs.rmSync(filler);
    await readyzIs(baseUrl, 200, 5_000);
    const created = await post(baseUrl, who, '/api/transaction', create('during'), 'key-during');
    expect(created.json.status).toBe('pending');
    expect(
      (await post(baseUrl, who, '/api/transaction', create('during'), 'key-during')).json.id,
    ).toBe(created.json.id);
    expect(
      (await post(baseUrl, who, '/api/wallet/payout', payout('during', receiver.url), null)).json
        .status,
    ).toBe('success');
    expect(
      (await post(baseUrl, who, '/api/wallet/payout', payout('during', receiver.url), null)).json
        .status,
    ).toBe('success');
    await callbacksFor(receiver, ['before', 'during']);
    expect(server.child.exitCode).toBe(null);
    expect(server.child.pid).toBe(pid);
  } finally {
    await server.stop();
  }
  const verify = await runCli(['ledger', 'verify'], env);
  expect(verify.code, verify.stderr).toBe(0);
  expect(verify.stdout).toMatch(/^ledger clean/);
  const data = await openDatabase({ engine: 'pglite', dataDir });
  try {
    const count = async (table: 'transactions' | 'payouts', order: string) =>
      Number(
        (
          await sql<{ n: string }>`
      SELECT COUNT(*)::text AS n FROM ${sql.table(table)} WHERE account_id = ${who.accountId} AND "order" = ${order}`.execute(
            data.db,
          )
        ).rows[0]!.n,
      );
    expect(await count('transactions', 'during')).toBe(1);
    expect(await count('payouts', 'during')).toBe(1);
    expect(await count('payouts', 'before')).toBe(1);
  } finally {
    await data.close();
  }
}

async function callbacksFor(receiver: Receiver, orders: readonly string[]): Promise<void> {
  const orderOf = (body: string) => {
    try {
      return String((JSON.parse(body) as { order?: unknown }).order);
    } catch {
      return '';
    }
  };
  const deadline = Date.now() + 15_000;
  const missing = () => orders.filter((o) => !receiver.requests.some((q) => orderOf(q.body) === o));
  while (missing().length > 0 && Date.now() < deadline) await sleep(200);
  expect(missing()).toEqual([]);
}

const skipReason = mountSkipReason();

describe.skipIf(skipReason !== null)(
  `DATA_DIR's disk full under the embedded engine${skipReason === null ? '' : ` (skipped: ${skipReason})`}`,
  () => {
    it('answers writes 503 while the disk is almost full, and serves again in the same process once space returns', {
      timeout: 90_000,
    }, async () => {
      const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-disk-full-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${tmpfsMb}m,mode=0700`, 'tmpfs', mount]);
      const receiver = await startReceiver();
      try {
        const dataDir = path.join(mount, 'data');
        // Seeded from the run's migrated snapshot, as the other reliability tests' DATA_DIRs are.
        const seeded = await openDatabase({
          engine: 'pglite',
          dataDir,
          loadDataDir: new Blob([fs.readFileSync(inject('pgliteSnapshotPath'))]),
        });
        await seeded.close();
        await scenario(dataDir, mount, receiver);
      } finally {
        await receiver.close();
        execFileSync('umount', ['--lazy', mount]);
        fs.rmSync(mount, { recursive: true, force: true });
      }
    });
  },
);

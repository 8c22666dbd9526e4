// Cobro behind PgBouncer in transaction mode, as many operators deploy it: a real server on DATABASE_URL pointing at
// a PgBouncer of the test's own (pool_mode=transaction, in front of the run's PostgreSQL) with
// DB_PREPARED_STATEMENTS=off (decision 230). Keyed creates and their replays, payouts, and the reads of a
// transaction, a payout and the wallet run from concurrent lanes: every answer is the one a direct connection
// gives, none is a 500, and the ledger verifies clean. Skips, saying why, without the pgbouncer binary or outside
// the PostgreSQL pass.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { creditWallet } from '../../src/modules/wallet/wallet-credit.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';
import { testConfig } from '../support/app.ts';
import { freePort } from '../support/net.ts';
import { call, sleep, type Credentials } from './load.ts';

const pgbouncerBin = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => fs.existsSync(p));
const skipReason =
  process.env.DATABASE_URL === undefined
    ? 'PostgreSQL pass only (DATABASE_URL unset)'
    : pgbouncerBin === undefined
      ? 'pgbouncer is not installed (apt-get install -y pgbouncer; .ci/run installs it)'
      : process.getuid?.() !== 0
        ? 'pgbouncer runs as the postgres user, which needs root'
        : null;
const lanes = 8;
const requestsPerLane = 12;

let bouncer: ChildProcess | null = null;
let server: RunningServer | null = null;
let database = '';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-pgbouncer-'));

async function admin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** PgBouncer in transaction mode on a free port, in front of `database` on the run's PostgreSQL. */
async function startBouncer(): Promise<number> {
  const upstream = new URL(process.env.DATABASE_URL ?? '');
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n');
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `cobro = host=${upstream.hostname} port=${upstream.port || 5432} dbname=${database} user=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 10',
      'max_client_conn = 200',
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  spawnSync('chown', ['-R', 'postgres', dir]);
  bouncer = spawn('runuser', ['-u', 'postgres', '--', pgbouncerBin ?? 'pgbouncer', ini], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  bouncer.stderr?.on('data', (c: Buffer) => (log += c.toString()));
  bouncer.stdout?.on('data', (c: Buffer) => (log += c.toString()));
  for (let i = 0; i < 100; i++) {
    const ok = await admin(async () => {
      const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/cobro` });
      c.on('error', () => {});
      return c.connect().then(
        () => c.end().then(() => true),
        () => false,
      );
    });
    if (ok) return port;
    await sleep(100);
  }
  throw new Error(`pgbouncer did not start:\n${log}`);
}

beforeAll(async () => {
  if (skipReason !== null) return;
  database = `${inject('postgresClonePrefix')}bouncer_${crypto.randomBytes(3).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${database} TEMPLATE ${inject('postgresTemplate')}`));
  const bouncerPort = await startBouncer();
  const port = await freePort();
  server = await startServer(
    testConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${bouncerPort}/cobro`,
      DB_PREPARED_STATEMENTS: 'off',
      COBRO_MODE: 'sandbox',
      RATE_LIMIT_PER_MINUTE: '0',
    }),
  );
}, 60_000);

afterAll(async () => {
  await server?.close();
  bouncer?.kill('SIGTERM');
  if (database !== '')
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skipReason !== null)(
  `behind PgBouncer in transaction mode ${skipReason ?? ''}`,
  () => {
    it('serves creates, replays, payouts and reads from concurrent lanes; the ledger verifies clean', async () => {
      const running = server!;
      const ctx = running.runtime.ctx;
      const created = await createAccount(ctx, 'Behind PgBouncer');
      if (!created.ok) throw new Error(created.error);
      const who: Credentials = {
        accountId: created.value.id,
        publicToken: created.value.publicToken,
        privateToken: created.value.privateToken,
      };
      const credited = await creditWallet(ctx, {
        accountId: who.accountId,
        currency: 'CLP',
        amountMinor: 10_000_000n,
        reason: 'pgbouncer',
        kind: 'adjustment',
      });
      expect(credited).not.toBeNull();
      const baseUrl = `http://127.0.0.1:${new URL(running.url).port}`;
      const statuses = new Map<number, number>();
      const tally = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const lane = async (l: number) => {
        for (let i = 0; i < requestsPerLane; i++) {
          const order = `pgb-${l}-${i}`;
          const body = { email: 'payer@example.com', order, subject: 'Bouncer', amount: 1000 + i };
          const key = { 'idempotency-key': `key-${order}` };
          const first = await call(baseUrl, who, 'POST', '/api/transaction', body, key);
          const replay = await call(baseUrl, who, 'POST', '/api/transaction', body, key);
          tally(first.status);
          expect(replay.json.id, replay.text).toBe(first.json.id);
          const read = await call(baseUrl, who, 'GET', `/api/transaction/${String(first.json.id)}`);
          tally(read.status);
          const payout = await call(baseUrl, who, 'POST', '/api/wallet/payout', {
            email: 'johndoe@example.com',
            subject: 'Bouncer payout',
            currency: 'CLP',
            order: `${order}-p`,
            amount: 1000,
            accountbank_name: 'Jhon Doe',
            accountbank_rut: '111111111',
            accountbank_sbif: '0001',
            accountbank_type: '1',
            accountbank_num: '12312312312',
          });
          tally(payout.status);
          const shown = await call(
            baseUrl,
            who,
            'GET',
            `/api/payout/${String(payout.json.identifier_payout)}`,
          );
          tally(shown.status);
        }
      };
      await Promise.all(Array.from({ length: lanes }, (_, l) => lane(l)));
      expect(Object.fromEntries(statuses)).toEqual({ 200: lanes * requestsPerLane * 4 });
      const wallet = await call(baseUrl, who, 'GET', '/api/wallet?currency=CLP');
      expect(wallet.json.amount_available).toBe(10_000_000 - lanes * requestsPerLane * 1000);
      const verified = await verifyLedger(ctx.db);
      expect(verified, JSON.stringify(verified)).toMatchObject({ ok: true });
    });
  },
);

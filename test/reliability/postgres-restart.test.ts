// The database going away is an outage, not a crash (decision 420): a real `cobro serve` on a PostgreSQL cluster
// of the test's own takes keyed creates and keyless payouts (with callbacks to a local receiver) while the cluster
// is restarted with `pg_ctl restart -m immediate` twice. Every request that got no answer, a 503 or a 409 is sent
// again as it was (same Idempotency-Key, same order). Then: the same process still serves, no request ever got a
// 500, /readyz said 503 while the database was away and 200 soon after, every acknowledged effect exists once,
// every acknowledged payout's callback arrived, and `cobro ledger verify` is clean.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { computeSign } from '../../src/platform/auth/sign.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { freePort } from '../support/net.ts';
import {
  ownPostgresSkipReason,
  startOwnPostgres,
  type OwnPostgres,
} from '../support/own-postgres.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { demoCredentials, sendUntilAnswered, sleep, type Credentials } from './load.ts';

const lanes = 12;
const requestsMax = 1500;
const fundingMinor = 10_000_000;
/** Sandbox amounts a payout is approved at on creation, so its callback is in the outbox when it answers. */
const payoutAmounts = [1000, 2000, 3000] as const;
/** How long one request may keep being retried: far beyond two restarts of a fraction of a second each. */
const retryWindowMs = 30_000;
/** After the second restart, the same process answers /readyz with 200 within this. */
const recoveryMsMax = 5_000;

interface Planned {
  readonly kind: 'transaction' | 'payout';
  readonly order: string;
  /** Creates carry an Idempotency-Key; payouts none (their order is what makes a retry safe). */
  readonly key: string | null;
  readonly path: string;
  readonly amountMinor: number;
  readonly body: Record<string, unknown>;
}

function planned(run: string, i: number, notifyUrl: string): Planned {
  const order = `${run}-${i}`;
  if (i % 4 !== 3) {
    return {
      kind: 'transaction',
      order,
      key: `key-${order}`,
      path: '/api/transaction',
      amountMinor: 1000 + i,
      body: { email: 'payer@example.com', order, subject: 'Restart', amount: 1000 + i },
    };
  }
  const amount = payoutAmounts[i % payoutAmounts.length]!;
  return {
    kind: 'payout',
    order,
    key: null,
    path: '/api/wallet/payout',
    amountMinor: amount,
    body: {
      email: 'johndoe@example.com',
      subject: 'Restart payout',
      currency: 'CLP',
      order,
      amount,
      url_notify: `${notifyUrl}/payout`,
      accountbank_name: 'Jhon Doe',
      accountbank_rut: '111111111',
      accountbank_sbif: '0001',
      accountbank_type: '1',
      accountbank_num: '12312312312',
    },
  };
}

/** /readyz polled throughout: every status seen, and when it last turned 200 after a 503. */
function readinessProbe(baseUrl: string) {
  const seen = new Map<number, number>();
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const status = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
        (res) => res.status,
        () => 0,
      );
      seen.set(status, (seen.get(status) ?? 0) + 1);
      await sleep(20);
    }
  })();
  return {
    seen,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

async function readyWithin(baseUrl: string, server: ServeProcess, ms: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (server.child.exitCode !== null)
      throw new Error(
        `cobro serve exited ${server.child.exitCode} at the restart:\n${server.output().slice(-2000)}`,
      );
    const status = await fetch(`${baseUrl}/readyz`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return Date.now() - started;
    await sleep(50);
  }
  throw new Error(`not ready ${ms} ms after the restart`);
}

async function scenario(pg: OwnPostgres, receiver: Receiver, dataDir: string): Promise<void> {
  // No rate limit: the load and its retries are one token's, far over a minute's default share on a fast box.
  const env = {
    DATABASE_URL: pg.url,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    COBRO_MODE: 'sandbox',
    RATE_LIMIT_PER_MINUTE: '0',
  };
  const migrated = await runCli(['migrate'], env);
  expect(migrated.code, migrated.stderr).toBe(0);
  const baseUrl = `http://127.0.0.1:${env.PORT}`;
  const server: ServeProcess = await startServe(env);
  const pid = server.child.pid;
  try {
    const who = demoCredentials(server.output());
    const funded = await fetch(`${baseUrl}/api/sandbox/wallet/credit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${who.publicToken}` },
      body: JSON.stringify({ amount: fundingMinor, currency: 'CLP', reason: 'restart' }),
    });
    expect(funded.status, await funded.text()).toBe(200);

    const run = `r${Date.now().toString(36)}`;
    const statuses = new Map<number, number>();
    const answers = new Map<string, { r: Planned; body: Record<string, unknown> }>();
    const probe = readinessProbe(baseUrl);
    let loadEnds = false;
    let next = 0;
    const lane = async () => {
      while (!loadEnds && next < requestsMax) {
        const r = planned(run, next++, receiver.url);
        answers.set(r.order, {
          r,
          body: await sendUntilAnswered(
            baseUrl,
            who,
            { ...r, idempotencyKey: r.key, signed: r.kind === 'payout' },
            statuses,
            {
              retryWindowMs,
              answerTimeoutMs: 10_000,
              on503: (res, text) => expect(res.headers.get('retry-after'), text).toMatch(/^\d+$/),
            },
          ),
        });
      }
    };
    const load = Promise.all(Array.from({ length: lanes }, lane));
    const recoveryMs: number[] = [];
    for (let restart = 0; restart < 2; restart++) {
      await sleep(400);
      await pg.restartImmediate();
      recoveryMs.push(await readyWithin(baseUrl, server, recoveryMsMax));
    }
    await sleep(400);
    loadEnds = true;
    await load;
    await probe.stop();
    console.info(
      `postgres-restart: ${answers.size} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}, readyz ${JSON.stringify(Object.fromEntries(probe.seen))}, ready again after ${recoveryMs.join(' and ')} ms`,
    );

    expect(server.child.exitCode, server.output().slice(-2000)).toBe(null);
    expect(server.child.pid).toBe(pid);
    expect(server.output()).not.toMatch(/Unhandled|unexpected error/);
    expect(statuses.get(500) ?? 0).toBe(0);
    // The outage was seen: a request or the probe was told 503.
    expect((statuses.get(503) ?? 0) + (probe.seen.get(503) ?? 0)).toBeGreaterThan(0);
    for (const { r, body } of answers.values())
      expect(body.status, `${r.order}: ${JSON.stringify(body)}`).toBe(
        r.kind === 'transaction' ? 'pending' : 'success',
      );
    await checkEffects(pg.url, who, [...answers.values()]);
    const paidMinor = [...answers.values()]
      .filter((a) => a.r.kind === 'payout')
      .reduce((sum, a) => sum + a.r.amountMinor, 0);
    expect(await walletAvailable(baseUrl, who)).toBe(fundingMinor - paidMinor);
    await checkCallbacks(
      receiver,
      [...answers.values()].filter((a) => a.r.kind === 'payout').map((a) => a.r.order),
    );
    const verify = await runCli(['ledger', 'verify'], env);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^ledger clean/);
  } finally {
    await server.stop();
  }
}

async function walletAvailable(baseUrl: string, who: Credentials): Promise<number> {
  const res = await fetch(`${baseUrl}/api/wallet?currency=CLP`, {
    headers: {
      authorization: `Bearer ${who.publicToken}`,
      sign: computeSign(who.privateToken, '/api/wallet', { currency: 'CLP' }),
    },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { amount_available: number }).amount_available;
}

/** Every acknowledged create exists once, by its id; every acknowledged payout once, by its order. */
async function checkEffects(
  url: string,
  who: Credentials,
  answers: ReadonlyArray<{ r: Planned; body: Record<string, unknown> }>,
): Promise<void> {
  const data = await openDatabase({ engine: 'postgres', url, poolSizeMax: 1 });
  try {
    const transactions = (
      await sql<{
        id: string;
        order: string;
      }>`SELECT id, "order" FROM transactions WHERE account_id = ${who.accountId}`.execute(data.db)
    ).rows;
    const payouts = (
      await sql<{
        order: string;
      }>`SELECT "order" FROM payouts WHERE account_id = ${who.accountId}`.execute(data.db)
    ).rows;
    const creates = answers.filter((a) => a.r.kind === 'transaction');
    expect(transactions.map((t) => t.id).sort()).toEqual(
      creates.map((a) => String(a.body.id)).sort(),
    );
    expect(new Set(transactions.map((t) => t.order)).size).toBe(transactions.length);
    const paid = answers.filter((a) => a.r.kind === 'payout');
    expect(payouts.map((p) => p.order).sort()).toEqual(paid.map((a) => a.r.order).sort());
  } finally {
    await data.close();
  }
}

/** Each acknowledged payout's callback reaches the receiver (the worker delivers it once the database is back). */
async function checkCallbacks(receiver: Receiver, orders: readonly string[]): Promise<void> {
  const missing = () => {
    const got = new Set(
      receiver.requests.map((q) => {
        try {
          return String((JSON.parse(q.body) as { order?: unknown }).order);
        } catch {
          return '';
        }
      }),
    );
    return orders.filter((o) => !got.has(o));
  };
  const deadline = Date.now() + 20_000;
  while (missing().length > 0 && Date.now() < deadline) await sleep(200);
  expect(missing()).toEqual([]);
}

const skipReason =
  process.env.DATABASE_URL === undefined
    ? 'PostgreSQL pass only (DATABASE_URL unset)'
    : ownPostgresSkipReason();

describe.skipIf(skipReason !== null)(
  `PostgreSQL restarted twice under load${skipReason === null ? '' : ` (skipped: ${skipReason})`}`,
  () => {
    it('keeps the process up, answers 503 meanwhile, and loses or doubles nothing', {
      timeout: 90_000,
    }, async () => {
      const pg = await startOwnPostgres();
      const receiver = await startReceiver();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-restart-'));
      try {
        await scenario(pg, receiver, dataDir);
      } finally {
        await receiver.close();
        await pg.dispose();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  },
);

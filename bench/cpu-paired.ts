// CPU per create of two or more Cobro checkouts under ONE load, beside the limit server (decision 200). Request i
// goes to server i mod k, so whatever else the shared box runs weighs on each server alike; each server's
// utime+stime from /proc/PID/stat before and after gives its CPU µs per request. Throughput is not reported: the
// servers share the load generator's 16 connections, so only the CPU per request compares. On PostgreSQL each server
// has a database of its own, and the CPU of that database's backends (pg_stat_activity polled through the load, the
// backends the pool opens meanwhile included, decision 775) is reported beside the server's: a create's PostgreSQL
// work costs the box's cores as much as the server's (decision 250).
//
//   node bench/cpu-paired.ts ENGINE ROUNDS REQUESTS CHECKOUT... [limit]
//   node bench/cpu-paired.ts postgres 3 3000 ../main . limit
//
// With PAIRED_LOAD=payouts50 the load is the bench's payouts over 50 funded wallets (POST /api/wallet/payout,
// round robin) instead of creates; the limit, if named, still takes its INSERTs. With PAIRED_LOAD=payments it is
// payments completing on the checkout (POST /gateway/cobro, a card approved, each transaction created beforehand
// with a callback URL as the bench's are, workers off so no callback is delivered during the load: decision 730).
//
// A CHECKOUT is a directory holding a Cobro tree with its node_modules (a git worktree of an older commit, with
// node_modules linked, serves as "before"); `limit` is bench/limit-server.ts from this tree. Linux only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareDatabase, type BenchDatabase, type BenchEngine } from './support/setup.ts';
import { payByCard, payoutBody, payoutMinor, postJson, transactionBody } from './support/client.ts';
import { runLoad } from './support/load.ts';
import { freePort } from '../test/support/net.ts';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const postgresUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Requests in flight over all the servers: PAIRED_CONCURRENCY, 16 unless set (16 a server gives each the bench's groups of payouts). */
const concurrency = Number(process.env.PAIRED_CONCURRENCY ?? 16);
if (!(concurrency >= 1 && concurrency <= 256)) throw new Error('PAIRED_CONCURRENCY is 1..256');
const warmupRequestsPerServer = 300;
const roundsMax = 20;
const requestsMax = 50_000;
const serversMax = 4;
const readyTimeoutMs = 60_000;
const clockTicksPerSecond = 100;
const pairedLoad = process.env.PAIRED_LOAD ?? 'creates';
if (pairedLoad !== 'creates' && pairedLoad !== 'payouts50' && pairedLoad !== 'payments')
  throw new Error('PAIRED_LOAD is creates, payouts50 or payments');
const spreadWallets = pairedLoad === 'payouts50' ? 50 : 1;
/** Node options for every server, e.g. PAIRED_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' (not allowed in NODE_OPTIONS). */
const nodeArgs = (process.env.PAIRED_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

function cpuTicks(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

interface Served {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  readonly urlPath: string;
  readonly database: BenchDatabase;
  stop(): Promise<void>;
}

async function serve(name: string, database: BenchDatabase): Promise<Served> {
  const limit = name === 'limit';
  const cwd = limit ? root : path.resolve(name);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...nodeArgs, ...(limit ? ['bench/limit-server.ts'] : ['src/cli/main.ts', 'serve'])],
    {
      cwd,
      env: {
        ...process.env,
        ...database.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        COBRO_MODE: 'sandbox',
        RATE_LIMIT_PER_MINUTE: '0',
        ...(pairedLoad === 'payments' ? { COBRO_WORKERS: '0' } : {}),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} not ready in ${readyTimeoutMs} ms`);
    }
    if ((await fetch(`${url}/readyz`).catch(() => null))?.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    name,
    url,
    pid: child.pid!,
    urlPath: limit
      ? '/insert'
      : pairedLoad === 'payouts50'
        ? '/api/wallet/payout'
        : pairedLoad === 'payments'
          ? '/gateway/cobro'
          : '/api/transaction',
    database,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const [engineText, roundsText, requestsText, ...names] = process.argv.slice(2);
const engine = engineText as BenchEngine;
const rounds = Number(roundsText);
const requests = Number(requestsText);
if (
  (engine !== 'postgres' && engine !== 'pglite') ||
  !(rounds >= 1 && rounds <= roundsMax) ||
  !(requests >= 1 && requests <= requestsMax) ||
  names.length < 1 ||
  names.length > serversMax
) {
  throw new Error(
    `usage: node bench/cpu-paired.ts postgres|pglite ROUNDS(1..${roundsMax}) REQUESTS(1..${requestsMax}) CHECKOUT... [limit] (1..${serversMax} servers)`,
  );
}

/**
 * The CPU ticks of a database's backends from now on, the ones that open during the load included: the pool closes
 * idle connections and opens others while the load runs, so a list of pids read once misses part of the work (and
 * may count a reused pid). Polls pg_stat_activity every 100 ms; a backend first seen after the start counts from 0
 * (its own start is work for this database too), each counts up to its last reading (a backend exits idle).
 */
function watchBackends(database: BenchDatabase): {
  started: Promise<void>;
  stop(): Promise<number>;
} {
  const url = database.env.DATABASE_URL;
  if (url === undefined) return { started: Promise.resolve(), stop: async () => 0 };
  const name = new URL(url).pathname.slice(1);
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const admin = new pg.Client({ connectionString: postgresUrl });
  const ready = admin.connect();
  let started = false;
  let running = true;
  let markStarted = () => {};
  const startedPromise = new Promise<void>((r) => {
    markStarted = r;
  });
  const poll = async () => {
    await ready;
    while (running) {
      const rows = (
        await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name])
      ).rows as { pid: number }[];
      for (const { pid } of rows) {
        let ticks: number;
        try {
          ticks = cpuTicks(pid);
        } catch {
          continue;
        }
        if (!first.has(pid)) first.set(pid, started ? 0 : ticks);
        last.set(pid, ticks);
      }
      started = true;
      markStarted();
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const polling = poll();
  return {
    started: startedPromise,
    stop: async () => {
      running = false;
      await polling;
      await admin.end();
      let sum = 0;
      for (const [pid, ticks] of last) sum += ticks - first.get(pid)!;
      return sum;
    },
  };
}

/** The checkout urls of `count` transactions created on the server's account (PAIRED_LOAD=payments). */
async function checkoutsOf(s: Served, count: number): Promise<string[]> {
  const urls: string[] = [];
  const made = await runLoad(count, concurrency, async (i) => {
    const body = transactionBody(i, { urlnotify: 'http://127.0.0.1:9/notify' });
    const answer = await postJson(s.url, s.database.accounts[0]!, '/api/transaction', body);
    urls[i] = String(answer.body?.url);
    return answer.status === 200;
  });
  if (made.ok !== count) throw new Error(`${s.name}: ${made.ok} of ${count} checkouts created`);
  return urls;
}

const microsByName = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  const servers: Served[] = [];
  try {
    for (const name of names) {
      // Every wallet funded for all the payouts the round could send it, warm-up included.
      const walletMinor = BigInt(payoutMinor * (requests + warmupRequestsPerServer));
      const database = await prepareDatabase({
        engine,
        postgresUrl,
        accounts: spreadWallets,
        walletMinorOf: () => (spreadWallets > 1 ? walletMinor : 0n),
      });
      servers.push(
        await serve(name, database).catch(async (error: unknown) => {
          await database.drop();
          throw error;
        }),
      );
    }
    const checkouts =
      pairedLoad === 'payments'
        ? await Promise.all(
            servers.map((s) =>
              s.urlPath === '/gateway/cobro'
                ? checkoutsOf(s, warmupRequestsPerServer + requests)
                : [],
            ),
          )
        : [];
    // The warm-up's payout orders must not be the load's: a second payout of one order is answered as a replay.
    let orderOffset = 0;
    const send = async (i: number) => {
      const s = servers[i % servers.length]!;
      if (s.urlPath === '/gateway/cobro') {
        const j = Math.floor((orderOffset + i) / servers.length);
        return payByCard(s.url, checkouts[i % servers.length]![j]!);
      }
      if (s.urlPath === '/api/wallet/payout') {
        const answer = await postJson(
          s.url,
          s.database.accounts[Math.floor(i / servers.length) % spreadWallets]!,
          s.urlPath,
          payoutBody(orderOffset + i),
        );
        return answer.status === 200 && answer.body?.status === 'success';
      }
      return (
        (await postJson(s.url, s.database.accounts[0]!, s.urlPath, transactionBody(i))).status ===
        200
      );
    };
    await runLoad(warmupRequestsPerServer * servers.length, concurrency, send);
    orderOffset = warmupRequestsPerServer * servers.length;
    const watches = servers.map((s) => watchBackends(s.database));
    await Promise.all(watches.map((w) => w.started));
    const before = servers.map((s) => cpuTicks(s.pid));
    const load = await runLoad(requests * servers.length, concurrency, send);
    const after = servers.map((s) => cpuTicks(s.pid));
    const pgTicks = await Promise.all(watches.map((w) => w.stop()));
    const microsOf = (ticks: number) =>
      Math.round(((ticks / clockTicksPerSecond) * 1e6) / requests);
    const line = servers.map((s, j) => {
      const micros = microsOf(after[j]! - before[j]!);
      microsByName.set(s.name, [...(microsByName.get(s.name) ?? []), micros]);
      if (s.database.env.DATABASE_URL === undefined) return `${s.name} ${micros} µs`;
      const pgMicros = microsOf(pgTicks[j]!);
      microsByName.set(`${s.name} PostgreSQL`, [
        ...(microsByName.get(`${s.name} PostgreSQL`) ?? []),
        pgMicros,
      ]);
      return `${s.name} ${micros} µs (PostgreSQL ${pgMicros} µs)`;
    });
    process.stdout.write(
      `${engine} round ${round}: ${line.join(', ')} per request (${load.ok}/${load.requests} ok, load ${os.loadavg()[0]!.toFixed(2)})\n`,
    );
  } finally {
    for (const s of servers) {
      await s.stop();
      await s.database.drop();
    }
  }
}
for (const [name, micros] of microsByName) {
  const median = [...micros].sort((a, b) => a - b)[micros.length >> 1];
  process.stdout.write(`${engine} ${name}: ${micros.join(' ')} µs per request, median ${median}\n`);
}

// Failover drill (decision 522): a PostgreSQL 15 primary and a streaming standby made with `pg_basebackup -R`, both
// private clusters on free ports, the primary committing only once the standby has the WAL
// (synchronous_standby_names = '*'). `cobro serve` runs on DATABASE_URL=postgres://…@127.0.0.1:P1,127.0.0.1:P2/
// postgres?target_session_attrs=read-write under keyed creates and payouts. Mid-load the primary is killed
// (`pg_ctl stop -m immediate`) and the standby promoted (`pg_ctl promote`). Every request without an answer, or
// answered 503/409, is sent again as it was (same Idempotency-Key, same order). Then, on the new primary: every
// acknowledged create and payout exists exactly once, the wallet holds what the payouts left, no request got a 500,
// the same process served throughout, and `cobro ledger verify` is clean. Needs root and PostgreSQL 15's binaries.
//   node bench/failover.ts
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { computeSign } from '../src/platform/auth/sign.ts';
import { runCli, startServe } from '../test/support/cli.ts';
import { freePort } from '../test/support/net.ts';
import {
  demoCredentials,
  sendUntilAnswered,
  sleep,
  type Credentials,
} from '../test/reliability/load.ts';

const run = promisify(execFile);
const binDir = '/usr/lib/postgresql/15/bin';
const lanes = 8;
const fundingMinor = 10_000_000;
const payoutMinor = 1000;
const retryWindowMs = 60_000;

const asPostgres = (bin: string, args: readonly string[]) =>
  run('runuser', ['-u', 'postgres', '--', path.join(binDir, bin), ...args], { timeout: 120_000 });

interface Cluster {
  readonly port: number;
  readonly data: string;
  ctl(args: readonly string[]): Promise<unknown>;
}

function cluster(dir: string, name: string, port: number): Cluster {
  const data = path.join(dir, name);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=60`;
  return {
    port,
    data,
    ctl: (args) =>
      asPostgres('pg_ctl', [
        '-D',
        data,
        '-l',
        path.join(dir, `${name}.log`),
        '-w',
        '-t',
        '60',
        ...(args[0] === 'start' ? ['-o', options] : []),
        ...args,
      ]),
  };
}

async function startPair(dir: string): Promise<{ primary: Cluster; standby: Cluster }> {
  const primary = cluster(dir, 'primary', await freePort());
  await asPostgres('initdb', ['-D', primary.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  await primary.ctl(['start']);
  const standby = cluster(dir, 'standby', await freePort());
  await asPostgres('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    standby.data,
    '-R',
    '-X',
    'stream',
  ]);
  await standby.ctl(['start']);
  // A commit is acknowledged only once the standby has flushed its WAL: the promoted standby then has every
  // acknowledged transaction. Without it (asynchronous replication) a failover may lose the last commits. Set on
  // the primary after the base backup, so the promoted standby does not wait for a standby of its own.
  fs.appendFileSync(
    path.join(primary.data, 'postgresql.conf'),
    "\nsynchronous_standby_names = '*'\nsynchronous_commit = on\n",
  );
  await primary.ctl(['reload']);
  const client = new pg.Client({
    connectionString: `postgres://postgres@127.0.0.1:${primary.port}/postgres`,
  });
  await client.connect();
  for (let i = 0; i < 100; i++) {
    const r = await client.query<{ sync_state: string }>(
      'SELECT sync_state FROM pg_stat_replication',
    );
    if (r.rows[0]?.sync_state === 'sync') break;
    if (i === 99) throw new Error(`the standby is not synchronous: ${JSON.stringify(r.rows)}`);
    await sleep(100);
  }
  await client.end();
  return { primary, standby };
}

interface Request {
  readonly kind: 'transaction' | 'payout';
  readonly order: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

function request(runId: string, i: number): Request {
  const order = `${runId}-${i}`;
  if (i % 3 !== 2)
    return {
      kind: 'transaction',
      order,
      path: '/api/transaction',
      body: { email: 'payer@example.com', order, subject: 'Failover', amount: 1000 + i },
    };
  return {
    kind: 'payout',
    order,
    path: '/api/wallet/payout',
    body: {
      email: 'johndoe@example.com',
      subject: 'Failover payout',
      currency: 'CLP',
      order,
      amount: payoutMinor,
      accountbank_name: 'Jhon Doe',
      accountbank_rut: '111111111',
      accountbank_sbif: '0001',
      accountbank_type: '1',
      accountbank_num: '12312312312',
    },
  };
}

async function check(
  url: string,
  who: Credentials,
  answers: ReadonlyArray<{ r: Request; body: Record<string, unknown> }>,
): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const problems: string[] = [];
  try {
    const trx = await client.query<{ id: string }>(
      'SELECT id FROM transactions WHERE account_id = $1',
      [who.accountId],
    );
    const acknowledged = answers.filter((a) => a.r.kind === 'transaction');
    const ids = new Set(trx.rows.map((t) => t.id));
    if (trx.rows.length !== acknowledged.length)
      problems.push(`${trx.rows.length} transactions stored, ${acknowledged.length} acknowledged`);
    for (const a of acknowledged)
      if (!ids.has(String(a.body.id))) problems.push(`transaction ${String(a.body.id)} lost`);
    const payouts = await client.query<{ order: string }>(
      'SELECT "order" FROM payouts WHERE account_id = $1',
      [who.accountId],
    );
    const paid = answers.filter((a) => a.r.kind === 'payout').map((a) => a.r.order);
    if (payouts.rows.length !== paid.length)
      problems.push(`${payouts.rows.length} payouts stored, ${paid.length} acknowledged`);
    const orders = new Set(payouts.rows.map((p) => p.order));
    for (const order of paid) if (!orders.has(order)) problems.push(`payout ${order} lost`);
  } finally {
    await client.end();
  }
  return problems;
}

async function drill(dir: string): Promise<string[]> {
  const { primary, standby } = await startPair(dir);
  const url = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write`;
  const env = {
    DATABASE_URL: url,
    DATA_DIR: path.join(dir, 'cobro'),
    PORT: String(await freePort()),
    COBRO_MODE: 'sandbox',
    RATE_LIMIT_PER_MINUTE: '0',
  };
  const migrated = await runCli(['migrate'], env);
  if (migrated.code !== 0) throw new Error(migrated.stderr);
  const server = await startServe(env);
  const baseUrl = `http://127.0.0.1:${env.PORT}`;
  try {
    const who = demoCredentials(server.output());
    const funded = await fetch(`${baseUrl}/api/sandbox/wallet/credit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${who.publicToken}` },
      body: JSON.stringify({ amount: fundingMinor, currency: 'CLP', reason: 'failover' }),
    });
    if (funded.status !== 200) throw new Error(await funded.text());
    const runId = `f${Date.now().toString(36)}`;
    const statuses = new Map<number, number>();
    const answers: Array<{ r: Request; body: Record<string, unknown> }> = [];
    let next = 0;
    let stop = false;
    const lane = async () => {
      while (!stop) {
        const r = request(runId, next++);
        answers.push({
          r,
          body: await sendUntilAnswered(
            baseUrl,
            who,
            {
              ...r,
              idempotencyKey: r.kind === 'transaction' ? `key-${r.order}` : null,
              signed: r.kind === 'payout',
            },
            statuses,
            { retryWindowMs, answerTimeoutMs: 15_000 },
          ),
        });
      }
    };
    // A lane's failure stops the others and is thrown at `await load`, so the servers below are still stopped.
    let failure: unknown = null;
    const load = Promise.all(Array.from({ length: lanes }, lane)).catch((error: unknown) => {
      failure = error;
      stop = true;
      console.error(`cobro serve's last output:\n${server.output().slice(-3000)}`);
    });
    await sleep(1500);
    const before = answers.length;
    console.info(`${new Date().toISOString()} killing the primary after ${before} answers`);
    const killedAt = Date.now();
    await primary.ctl(['-m', 'immediate', 'stop']);
    await standby.ctl(['promote']);
    const promotedMs = Date.now() - killedAt;
    console.info(`${new Date().toISOString()} standby promoted`);
    while (answers.length < before + 20 && !stop && Date.now() - killedAt < retryWindowMs)
      await sleep(50);
    const servingAgainMs = Date.now() - killedAt;
    await sleep(1000);
    stop = true;
    await load;
    if (failure !== null) throw failure;
    const problems = await check(
      `postgres://postgres@127.0.0.1:${standby.port}/postgres`,
      who,
      answers,
    );
    if ((statuses.get(500) ?? 0) > 0) problems.push(`${statuses.get(500)} answers were 500`);
    if (server.child.exitCode !== null) problems.push('cobro serve exited');
    const paidMinor = answers.filter((a) => a.r.kind === 'payout').length * payoutMinor;
    const wallet = await fetch(`${baseUrl}/api/wallet?currency=CLP`, {
      headers: {
        authorization: `Bearer ${who.publicToken}`,
        sign: computeSign(who.privateToken, '/api/wallet', { currency: 'CLP' }),
      },
    }).then((r) => r.json() as Promise<{ amount_available: number }>);
    if (wallet.amount_available !== fundingMinor - paidMinor)
      problems.push(`wallet ${wallet.amount_available}, expected ${fundingMinor - paidMinor}`);
    const verify = await runCli(['ledger', 'verify'], env);
    if (verify.code !== 0) problems.push(`ledger verify: ${verify.stdout}${verify.stderr}`);
    console.info(
      `failover: ${answers.length} requests acknowledged (${before} before the primary was killed), statuses ${JSON.stringify(Object.fromEntries(statuses))}; standby promoted ${promotedMs} ms after the kill, 20 more acknowledged by ${servingAgainMs} ms; ${verify.stdout.trim()}`,
    );
    return problems;
  } finally {
    await server.stop();
    await standby.ctl(['-m', 'immediate', 'stop']).catch(() => {});
    await primary.ctl(['-m', 'immediate', 'stop']).catch(() => {});
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-failover-'));
const ids = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
fs.chownSync(dir, Number(ids[0].stdout.trim()), Number(ids[1].stdout.trim()));
try {
  const problems = await drill(dir);
  if (problems.length > 0) {
    console.error(`failover drill FAILED:\n- ${problems.join('\n- ')}`);
    process.exitCode = 1;
  } else console.info('failover drill passed: nothing acknowledged lost, nothing done twice');
} finally {
  if (process.env.KEEP === undefined) fs.rmSync(dir, { recursive: true, force: true });
  else console.info(`kept ${dir}`);
}

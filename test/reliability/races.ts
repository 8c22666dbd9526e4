// The stage of the HTTP race tests: `cobro serve` on the suite's engine, twice over one PostgreSQL (two processes,
// each with its own pool, so requests sent to both truly run at once), once on PGlite (one process owns the files).
// A merchant with no fee, paid sales made through the hosted checkout, and the checks run after every race.
// Operator commands run as `cobro` runs them, without a process of their own (one costs a second or more of CPU,
// most of a race's time before decision 760): on PGlite through the serving process's operator socket, as the
// command line itself does; on PostgreSQL in a runtime of this process, as the command line's own would.
import { expect } from 'vitest';
import { dispatch } from '../../src/cli/dispatch.ts';
import { opsSocketPath, runThroughServer } from '../../src/cli/ops-socket.ts';
import { loadConfig } from '../../src/platform/process/config.ts';
import { createLogger } from '../../src/platform/process/logger.ts';
import { openRuntime } from '../../src/runtime.ts';
import { startServe, type CliResult, type ServeProcess } from '../support/cli.ts';
import { serveOn, suiteEngine, type Engine } from './engines.ts';
import { call, payCheckout, type Credentials } from './load.ts';

const paidMarker = 'data-testid="result">Pago exitoso<';

export interface Stage {
  readonly engine: Engine;
  readonly env: Record<string, string>;
  /** One base URL per process: two on PostgreSQL, one on PGlite. */
  readonly urls: readonly string[];
  readonly servers: readonly ServeProcess[];
  /** A `cobro` operator command and what it printed. */
  operator(argv: readonly string[]): Promise<CliResult>;
  close(): Promise<void>;
}

/**
 * Operator commands on a serving `cobro serve`'s data, as `cobro` runs them but without a process of its own: the
 * serving process's operator socket on PGlite (what the command line does when a server answers there), a runtime of
 * ours on PostgreSQL. On PGlite a server must be serving when a command runs. Also the kill tests' (docs/testing.md:
 * a `cobro` process costs about a CPU second and proves nothing about the kill).
 */
export async function operatorOn(
  engine: Engine,
  env: Record<string, string>,
): Promise<{ run: Stage['operator']; close: () => Promise<void> }> {
  const asCli = (o: { exitCode: number; stdout: string; stderr: string }): CliResult => ({
    code: o.exitCode,
    stdout: o.stdout,
    stderr: o.stderr,
  });
  if (engine.name === 'pglite') {
    const socketPath = opsSocketPath(engine.dataDir);
    return {
      run: async (argv) => asCli(await runThroughServer(socketPath, argv)),
      close: async () => {},
    };
  }
  const loaded = loadConfig(env);
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const runtime = await openRuntime(loaded.config, {
    handle: await engine.open(),
    migrate: false,
    logger: createLogger('error'),
  });
  return {
    run: async (argv) => asCli(await dispatch(argv, runtime.ctx)),
    close: () => runtime.close(),
  };
}

export async function startStage(extra: Record<string, string> = {}): Promise<Stage> {
  // Sales settle on the next clock advance (as in the in-process tests), not a day later.
  const more = { SETTLEMENT_DELAY_DAYS: '0', ...extra };
  const engine = await suiteEngine();
  const places = [await serveOn(engine, more)];
  if (engine.name === 'postgres') places.push(await serveOn(engine, more));
  // Started together: a start is seconds of loading and connecting, and the two do not wait on each other.
  const started = await Promise.allSettled(places.map((p) => startServe(p.env)));
  const servers: ServeProcess[] = started.flatMap((r) =>
    r.status === 'fulfilled' ? [r.value] : [],
  );
  const failed = started.find((r) => r.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(servers.map((s) => s.stop()));
    await engine.dispose();
    throw failed.reason;
  }
  const urls = places.map((p) => p.baseUrl);
  const first = places[0]!;
  const operator = await operatorOn(engine, first.env);
  return {
    engine,
    env: first.env,
    urls,
    servers,
    operator: operator.run,
    close: async () => {
      await operator.close();
      await Promise.all(servers.map((s) => s.stop()));
      await engine.dispose();
    },
  };
}

/** The i-th process's URL (round robin), so requests fired together land on both processes. */
export function urlOf(stage: Stage, i: number): string {
  return stage.urls[i % stage.urls.length]!;
}

/** A new account made by the operator command, with its fee set to `percent` (0: the sums below stay exact). */
export async function newAccount(stage: Stage, name: string, percent = '0'): Promise<Credentials> {
  const made = await stage.operator(['accounts', 'create', '--name', name, '--json']);
  expect(made.code, made.stderr).toBe(0);
  const a = JSON.parse(made.stdout) as { id: string; public_token: string; private_token: string };
  const fee = await stage.operator([
    'accounts',
    'set-fee',
    a.id,
    '--payment',
    '1',
    '--percent',
    percent,
    '--fixed',
    '0',
  ]);
  expect(fee.code, fee.stderr + fee.stdout).toBe(0);
  return { accountId: a.id, publicToken: a.public_token, privateToken: a.private_token };
}

/** A sale created by the API and paid on the hosted checkout with the approved card; its id. */
export async function paidSale(
  stage: Stage,
  who: Credentials,
  order: string,
  amount: number,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const base = stage.urls[0]!;
  const res = await call(base, who, 'POST', '/api/transaction', {
    email: 'payer@example.com',
    order,
    subject: 'race',
    amount,
    ...extra,
  });
  expect(res.status, res.text).toBe(200);
  const q = new URL(String(res.json.url)).searchParams;
  const page = await payCheckout(base, { id: q.get('id')!, valid: q.get('valid')! });
  expect(page ?? '', 'the checkout answered').toContain(paidMarker);
  return String(res.json.id);
}

export async function advance(
  baseUrl: string,
  who: Credentials,
  by: Record<string, number>,
): Promise<{ status: number; text: string }> {
  return call(baseUrl, who, 'POST', '/api/sandbox/clock/advance', by);
}

/** `cobro ledger verify` exits 0. */
export async function expectLedgerClean(stage: Stage): Promise<void> {
  const verify = await stage.operator(['ledger', 'verify']);
  expect(verify.code, verify.stderr + verify.stdout).toBe(0);
}

/** The ledger balance of one of an account's ledger accounts, read in the database. */
export async function balanceMinor(
  stage: Stage,
  owner: string,
  code: string,
  currency = 'CLP',
): Promise<bigint> {
  const db = await stage.engine.open();
  const row = await db.db
    .selectFrom('ledger_accounts')
    .select('balance_minor')
    .where('owner', '=', owner)
    .where('code', '=', code)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return BigInt(row?.balance_minor ?? 0);
}

export const payoutBody = (order: string, amount: number): Record<string, unknown> => ({
  email: 'johndoe@example.com',
  subject: 'race payout',
  currency: 'CLP',
  order,
  amount,
  accountbank_name: 'Jhon Doe',
  accountbank_rut: '111111111',
  accountbank_sbif: '0001',
  accountbank_type: '1',
  accountbank_num: '12312312312',
});

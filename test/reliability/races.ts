// The stage of the HTTP race tests: `cobro serve` on the suite's engine, twice over one PostgreSQL (two processes,
// each with its own pool, so requests sent to both truly run at once), once on PGlite (one process owns the files).
// A merchant with no fee, paid sales made through the hosted checkout, and the checks run after every race.
import { expect } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { serveOn, suiteEngine, type Engine } from './engines.ts';
import { call, payCheckout, type Credentials } from './load.ts';

const paidMarker = 'data-testid="result">Pago exitoso<';

export interface Stage {
  readonly engine: Engine;
  readonly env: Record<string, string>;
  /** One base URL per process: two on PostgreSQL, one on PGlite. */
  readonly urls: readonly string[];
  readonly servers: readonly ServeProcess[];
  close(): Promise<void>;
}

export async function startStage(extra: Record<string, string> = {}): Promise<Stage> {
  // Sales settle on the next clock advance (as in the in-process tests), not a day later.
  const more = { SETTLEMENT_DELAY_DAYS: '0', ...extra };
  const engine = await suiteEngine();
  const first = await serveOn(engine, more);
  const servers: ServeProcess[] = [await startServe(first.env)];
  const urls = [first.baseUrl];
  if (engine.name === 'postgres') {
    const second = await serveOn(engine, more);
    servers.push(await startServe(second.env));
    urls.push(second.baseUrl);
  }
  return {
    engine,
    env: first.env,
    urls,
    servers,
    close: async () => {
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
  const made = await runCli(['accounts', 'create', '--name', name, '--json'], stage.env);
  expect(made.code, made.stderr).toBe(0);
  const a = JSON.parse(made.stdout) as { id: string; public_token: string; private_token: string };
  const fee = await runCli(
    ['accounts', 'set-fee', a.id, '--payment', '1', '--percent', percent, '--fixed', '0'],
    stage.env,
  );
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
  const verify = await runCli(['ledger', 'verify'], stage.env);
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

// Payouts per second against one hot wallet on PostgreSQL: every request takes the same wallet row lock, so this
// measures the serialised reserve path (lock, order check, journal, movement) end to end through HTTP.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { createContext } from '../src/runtime.ts';
import { systemClock } from '../src/platform/clock.ts';
import { loadConfig } from '../src/platform/config.ts';
import type { AppContext } from '../src/platform/context.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { createSecretBox } from '../src/platform/secrets.ts';
import { computeSign } from '../src/platform/auth/sign.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { creditWallet } from '../src/modules/wallet/wallet-credit.ts';
import { verifyLedger } from '../src/platform/ledger/verify.ts';

export interface WalletPayoutsOptions {
  readonly databaseUrl: string;
  readonly payouts: number;
  readonly concurrency: number;
  /** Wallets the payouts spread over, round robin: 1 is the hot-wallet case. */
  readonly wallets?: number;
}

export const walletPayoutsDefaults = { payouts: 2000, concurrency: 16 } as const;
const walletsMax = 1000;
const payoutsMax = 100_000;
const concurrencyMax = 256;
/** Not one of the sandbox's fixed amounts, so every payout stays pending and only the reserve path runs. */
const amountMinor = 1234;

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

function percentile(sortedMs: readonly number[], p: number): number {
  const index = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return Math.round((sortedMs[index] ?? 0) * 100) / 100;
}

export async function benchWalletPayouts(options: WalletPayoutsOptions) {
  if (options.payouts < 1 || options.payouts > payoutsMax) throw new RangeError(`payouts must be 1..${payoutsMax}`);
  if (options.concurrency < 1 || options.concurrency > concurrencyMax) throw new RangeError(`concurrency must be 1..${concurrencyMax}`);
  const name = `cobro_bench_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: options.databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-bench-'));
  const handle = await openDatabase({ engine: 'postgres', url: withDatabase(options.databaseUrl, name) });
  try {
    await migrateToLatest(handle.db);
    // The bench measures the payout path, not the rate limit (decision 072) that would stop one token past 6,000 a minute.
    const loaded = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', COBRO_WORKERS: '0', COBRO_MODE: 'sandbox', RATE_LIMIT_PER_MINUTE: '0' });
    if (!loaded.ok) throw new Error(loaded.errors.join('; '));
    const ctx: AppContext = createContext({
      db: handle.db, engine: 'postgres', config: loaded.config, clock: systemClock,
      secrets: createSecretBox(crypto.randomBytes(32)), logger: pino({ level: 'silent' }),
    });
    const app = await buildApp(ctx);
    await app.ready();
    const wallets = options.wallets ?? 1;
    if (wallets < 1 || wallets > walletsMax) throw new RangeError(`wallets must be 1..${walletsMax}`);
    const accounts: { id: string; publicToken: string; privateToken: string }[] = [];
    for (let w = 0; w < wallets; w++) {
      const created = await createAccount(ctx, `Bench merchant ${w}`);
      if (!created.ok) throw new Error(created.error);
      accounts.push(created.value);
      await creditWallet(ctx, { accountId: created.value.id, currency: 'CLP', amountMinor: BigInt(amountMinor * options.payouts), reason: 'bench funds', kind: 'adjustment' });
    }
    const latenciesMs: number[] = [];
    let accepted = 0;
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < options.payouts; i = next++) {
        const account = accounts[i % wallets]!;
        const body = {
          email: 'bench@example.com', subject: `bench ${i}`, currency: 'CLP', order: `bench-${i}`, amount: amountMinor,
          accountbank_name: 'Bench', accountbank_rut: '111111111', accountbank_sbif: '0001', accountbank_type: '1', accountbank_num: '123123123',
        };
        const started = performance.now();
        const res = await app.inject({
          method: 'POST', url: '/api/wallet/payout', payload: body,
          headers: { authorization: `Bearer ${account.publicToken}`, sign: computeSign(account.privateToken, '/api/wallet/payout', body), accept: 'application/json' },
        });
        latenciesMs.push(performance.now() - started);
        if (res.statusCode === 200 && res.json().status === 'success') accepted++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    const durationMs = performance.now() - started;
    const verified = await verifyLedger(handle.db);
    await app.close();
    latenciesMs.sort((a, b) => a - b);
    return {
      bench: 'wallet-payouts',
      engine: 'postgres',
      payouts: options.payouts,
      concurrency: options.concurrency,
      wallets,
      accepted,
      durationMs: Math.round(durationMs),
      payoutsPerSecond: Math.round((options.payouts / durationMs) * 1000 * 10) / 10,
      p50Ms: percentile(latenciesMs, 50),
      p99Ms: percentile(latenciesMs, 99),
      ledgerClean: verified.ok,
    };
  } finally {
    await handle.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// A fresh database for one bench run on one engine, migrated, with merchant accounts (and wallet funds) created
// before any server starts, so the servers under test only serve.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../src/platform/process/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { creditWallet } from '../../src/modules/wallet/wallet-credit.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { enqueueCallback } from '../../src/platform/notifications/enqueue.ts';

export type BenchEngine = 'postgres' | 'pglite';

export interface BenchAccount {
  readonly id: string;
  readonly publicToken: string;
  readonly privateToken: string;
}

export interface BenchDatabase {
  readonly engine: BenchEngine;
  /** The environment a `cobro serve` or the limits' server needs to open this database. */
  readonly env: Readonly<Record<string, string>>;
  readonly accounts: readonly BenchAccount[];
  /** Runs `cobro ledger verify`'s checks; call only once every server on the database has stopped (PGlite). */
  verify(): Promise<boolean>;
  /** Puts `count` callbacks to `url` in the outbox, due now; only while no server runs on the database (PGlite). */
  seedCallbacks(accountId: string, url: string, count: number): Promise<void>;
  drop(): Promise<void>;
}

const accountsMax = 1000;

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function prepareDatabase(options: {
  engine: BenchEngine;
  postgresUrl: string;
  accounts: number;
  walletMinorOf?: (index: number) => bigint;
}): Promise<BenchDatabase> {
  if (options.accounts < 1 || options.accounts > accountsMax)
    throw new RangeError(`accounts must be 1..${accountsMax}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-bench-'));
  const name = `cobro_bench_${crypto.randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    COBRO_SECRET_KEY: crypto.randomBytes(32).toString('hex'),
  };
  if (options.engine === 'postgres') {
    const admin = new pg.Client({ connectionString: options.postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    env.DATABASE_URL = withDatabase(options.postgresUrl, name);
  }
  const loaded = loadConfig({ ...env, LOG_LEVEL: 'silent', COBRO_MODE: 'sandbox' });
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  const runtime = await openRuntime(loaded.config, { logger: pino({ level: 'silent' }) });
  const accounts: BenchAccount[] = [];
  try {
    for (let i = 0; i < options.accounts; i++) {
      const created = await createAccount(runtime.ctx, `Bench merchant ${i}`);
      if (!created.ok) throw new Error(created.error);
      accounts.push(created.value);
      const walletMinor = options.walletMinorOf?.(i) ?? 0n;
      if (walletMinor > 0n) {
        await creditWallet(runtime.ctx, {
          accountId: created.value.id,
          currency: 'CLP',
          amountMinor: walletMinor,
          reason: 'bench funds',
          kind: 'adjustment',
        });
      }
    }
  } finally {
    await runtime.close();
  }
  const open = () =>
    env.DATABASE_URL !== undefined
      ? openDatabase({ engine: 'postgres', url: env.DATABASE_URL })
      : openDatabase({ engine: 'pglite', dataDir });
  return {
    engine: options.engine,
    env,
    accounts,
    async verify() {
      const handle = await open();
      try {
        return (await verifyLedger(handle.db)).ok;
      } finally {
        await handle.close();
      }
    },
    async seedCallbacks(accountId, url, count) {
      const handle = await open();
      try {
        await handle.db.transaction().execute(async (tx) => {
          const at = new Date();
          for (let i = 0; i < count; i++)
            await enqueueCallback(tx, {
              accountId,
              url,
              eventType: 'bench.callback',
              payload: { seq: i },
              at,
            });
        });
      } finally {
        await handle.close();
      }
    },
    async drop() {
      if (options.engine === 'postgres') {
        const admin = new pg.Client({ connectionString: options.postgresUrl });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

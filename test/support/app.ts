// Builds the real application on a fresh database with a manual clock: the stack tests go through.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { createContext } from '../../src/runtime.ts';
import type { AppModule } from '../../src/platform/module.ts';
import { ManualClock } from '../../src/platform/time/clock.ts';
import { loadConfig, type Config } from '../../src/platform/process/config.ts';
import type { AppContext } from '../../src/platform/context.ts';
import type { KyselyPlugin } from 'kysely';
import type { DatabaseHandle } from '../../src/platform/db/database.ts';
import { createSecretBox } from '../../src/platform/auth/secrets.ts';
import { computeSign, queryParams } from '../../src/platform/auth/sign.ts';
import { computeCobroSignature } from '../../src/platform/auth/cobro-signature.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { cloneTestDatabase } from './database.ts';
import { assertDatabaseMode } from '../../src/platform/db/database-mode.ts';

export interface TestAccount {
  readonly id: string;
  readonly publicToken: string;
  readonly privateToken: string;
  readonly webhookSecret: string;
}

export interface TestApp {
  readonly app: FastifyInstance;
  readonly ctx: AppContext;
  readonly clock: ManualClock;
  readonly handle: DatabaseHandle;
  createAccount(name?: string): Promise<TestAccount>;
  /** A request with the account's Bearer token and, when `sign` is true, a valid Sign header. */
  call(account: TestAccount | null, options: CallOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

interface CallOptions {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  readonly url: string;
  readonly body?: unknown;
  readonly sign?: boolean;
  /** Adds a valid Cobro-Signature at the app's clock (the body is then sent as the exact JSON text signed). */
  readonly signature?: boolean;
  readonly headers?: Record<string, string>;
}

export interface TestAppOptions {
  readonly env?: Record<string, string>;
  readonly clockStart?: string;
  /** Routes a test adds before the app is ready (e.g. one that fails on purpose). */
  readonly extraRoutes?: (app: FastifyInstance) => void;
  /**
   * Another configuration over the database of an app already started: a second app without a second database
   * (a clone costs seconds on PGlite). That app keeps the database; closing this one leaves it open.
   */
  readonly sharing?: TestApp;
  /** A database of the test's own (on a PostgreSQL cluster of its own, say), migrated; the app leaves it open. */
  readonly handle?: DatabaseHandle;
  /** The module list app.ts registers (all of them unless a test wraps them, e.g. to watch their routes). */
  readonly modules?: readonly AppModule[];
  /** A Kysely plugin on the app's database handle (e.g. one counting statements per request). */
  readonly dbPlugin?: KyselyPlugin;
  /** Another composition of payment extensions than src/modules/payment-extensions.ts's (the port's test). */
  readonly paymentExtensions?: AppContext['paymentExtensions'];
  /** The service logger (silent unless a test reads what the service logs). */
  readonly logger?: AppContext['logger'];
}

export function testConfig(env: Record<string, string> = {}): Config {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-test-'));
  // Tests serve plain http on 127.0.0.1, production-mode ones too: the case COBRO_ALLOW_INSECURE_PUBLIC_URL names.
  const loaded = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SETTLEMENT_DELAY_DAYS: '0',
    COBRO_WORKERS: '0',
    COBRO_ALLOW_INSECURE_PUBLIC_URL: '1',
    // Dashboard passwords at scrypt's lowest allowed cost (2^10, not 2^15): a sign-in is a hash, and the suite signs
    // in often. test/dashboard/dashboard-users.test.ts checks the default's hash apart.
    PASSWORD_HASH_COST: '10',
    ...env,
  });
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  return loaded.config;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(options.env);
  const handle = options.sharing?.handle ?? options.handle ?? (await cloneTestDatabase());
  const clock =
    options.sharing !== undefined && options.clockStart === undefined
      ? options.sharing.clock
      : new ManualClock(options.clockStart ?? '2026-03-10T15:00:00Z');
  const composed: AppContext = createContext({
    db: options.dbPlugin !== undefined ? handle.db.withPlugin(options.dbPlugin) : handle.db,
    engine: handle.engine,
    pool: handle.pool,
    config,
    clock,
    // Two apps on one database share its secret key, as two processes of one deployment do; a test that starts
    // processes of its own on the database sets COBRO_SECRET_KEY, which they must share too (decision 690).
    secrets:
      options.sharing?.ctx.secrets ?? createSecretBox(config.secretKey ?? crypto.randomBytes(32)),
    logger: options.logger ?? pino({ level: 'silent' }),
    // As a server's: authenticated accounts are kept in memory and dropped on change (decision 190).
    changes: handle.changes,
  });
  const ctx: AppContext =
    options.paymentExtensions === undefined
      ? composed
      : { ...composed, paymentExtensions: options.paymentExtensions };
  // The app stands for a `cobro serve`: the clone it made takes the app's mode (decision 930), as a real start records
  // it, so processes a test starts on it in another mode are refused as they would be. A second app sharing the
  // database is one deployment's other process; a database the test brings (`handle`) is the test's to set up.
  if (options.sharing === undefined && options.handle === undefined)
    await assertDatabaseMode(handle.db, config.mode, 'the test database', true);
  const app = await buildApp(ctx, options.modules);
  options.extraRoutes?.(app);
  await app.ready();
  return {
    app,
    ctx,
    clock,
    handle,
    async createAccount(name = 'Test merchant') {
      const created = await createAccount(ctx, name);
      if (!created.ok) throw new Error(created.error);
      const a = created.value;
      return {
        id: a.id,
        publicToken: a.publicToken,
        privateToken: a.privateToken,
        webhookSecret: a.webhookSecret,
      };
    },
    async call(account, call) {
      const headers: Record<string, string> = {
        accept: 'application/json',
        ...(call.headers ?? {}),
      };
      if (account !== null) headers.authorization = `Bearer ${account.publicToken}`;
      const [pathOnly, queryString] = call.url.split('?') as [string, string | undefined];
      if (account !== null && call.sign === true) {
        const params =
          call.method === 'GET'
            ? queryParams(queryString ?? '')
            : call.body !== null && typeof call.body === 'object'
              ? (call.body as Record<string, unknown>)
              : {};
        headers.sign = computeSign(account.privateToken, decodeURIComponent(pathOnly), params);
      }
      const inject: InjectOptions = { method: call.method, url: call.url, headers };
      if (call.body !== undefined) inject.payload = call.body as InjectOptions['payload'];
      if (account !== null && call.signature === true) {
        const text =
          call.body === undefined
            ? ''
            : typeof call.body === 'string'
              ? call.body
              : JSON.stringify(call.body);
        if (call.body !== undefined) {
          inject.payload = text;
          headers['content-type'] ??= 'application/json';
        }
        headers['cobro-signature'] = computeCobroSignature(
          account.privateToken,
          Math.floor(clock.now().getTime() / 1000),
          call.method,
          pathOnly,
          text,
        );
      }
      return app.inject(inject);
    },
    async close() {
      await app.close();
      if (options.sharing === undefined && options.handle === undefined) await handle.close();
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

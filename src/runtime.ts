// The composition root: opens what a process needs (database, migrations, secrets, clock, logger), wires the
// ports to their implementations (account directory, due-work registry) into one context, and closes it again.
// Nothing else builds an AppContext: the server, the workers, the CLI and the tests all come through here.
import type { Logger } from 'pino';
import type { PGlite } from '@electric-sql/pglite';
import type { Config } from './platform/process/config.ts';
import type { Clock } from './platform/time/clock.ts';
import { systemClock } from './platform/time/clock.ts';
import type { AppContext, ContextBase, DueWorkHandler } from './platform/context.ts';
import path from 'node:path';
import {
  checkPostgresReachable,
  embeddedDatabaseExists,
  openDatabase,
  redactedUrl,
  type DatabaseHandle,
} from './platform/db/database.ts';
import { migrateToLatest, pendingMigrations } from './platform/db/migrate.ts';
import { assertDatabaseMode } from './platform/db/database-mode.ts';
import { assertTrustedAccountsExist } from './platform/notifications/trusted-accounts.ts';
import { purgeExpiredKeys } from './platform/idempotency/store.ts';
import { createLogger } from './platform/process/logger.ts';
import type { ReadyWatchdog } from './platform/process/ready-watchdog.ts';
import type { AppModule } from './platform/module.ts';
import { databaseSecrets } from './platform/auth/database-key.ts';
import { keylessSecretBox, type SecretBox } from './platform/auth/secrets.ts';
import { watchDiskSpace } from './platform/db/disk-space.ts';
import { StartupError } from './platform/process/startup-error.ts';
import { appModules } from './modules/index.ts';
import { accountDirectory } from './modules/accounts/directory.ts';
import { assertLimits, limits } from './limits/index.ts';
import { paymentExtensions, settlementHolds } from './modules/payment-extensions.ts';
import { refundPorts } from './modules/refunds/ports.ts';
import { fintocPayoutSenders } from './modules/fintoc/payout-dispatch.ts';
import { createLedger } from './platform/ledger/sql-ledger.ts';
import { processorFor } from './platform/processors/index.ts';
import { createAccountClock } from './platform/time/sandbox-clock.ts';
import { Memo } from './platform/memo.ts';
import { referenceData } from './modules/reference/repository.ts';
import { transactionCreateGroups } from './modules/transactions/create-group-commit.ts';
import { paymentSuccessGroups } from './modules/transactions/success-group-commit.ts';
import { attemptClaimGroups } from './modules/transactions/claim-group.ts';
import { walletSummaryReads } from './modules/wallet/summary-reads.ts';
import { transactionRowReads } from './modules/transactions/row-reads.ts';
import { PayoutGroups } from './modules/wallet/payout-groups.ts';

export interface Runtime {
  readonly ctx: AppContext;
  readonly handle: DatabaseHandle;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** An already-open database (tests pass a snapshot clone). */
  readonly handle?: DatabaseHandle;
  readonly migrate?: boolean;
  /** PostgreSQL only: a statement unanswered this long fails and closes its connection (`cobro serve`'s, decision 685). */
  readonly queryTimeoutMs?: number;
  /**
   * For commands that only read: open without migrating, in read-only transactions, creating nothing (no database,
   * no key file); refuse with a StartupError when the database is missing or its schema is behind this code's.
   */
  readonly readOnly?: boolean;
  /**
   * `cobro migrate`: no secret key is read, made or checked against the database (decision 815): a migration opens
   * no secret, and a key missing from this directory must not stop it. The context's box refuses any use.
   */
  readonly keyless?: boolean;
  /**
   * `cobro serve`'s and `cobro worker`'s readiness watchdog: told when the start's migrations begin and end, so that
   * a start making progress on them is not taken for a hung one (decision 930).
   */
  readonly readyWatchdog?: Pick<ReadyWatchdog, 'migrating' | 'migrated'>;
}

/** The platform's own time-driven work, run before the modules'. */
const platformDueWork: readonly DueWorkHandler[] = [
  {
    name: 'idempotency-expiry',
    run: (ctx, scope) => purgeExpiredKeys(ctx.db, ctx.clock.now(), scope.accountId, scope.limit),
  },
];

/** Every due-work handler once, platform first, then the modules in their listed order. */
function dueWorkRegistry(modules: readonly AppModule[]): readonly DueWorkHandler[] {
  const handlers = [...platformDueWork, ...modules.flatMap((m) => m.dueWork)];
  const names = handlers.map((h) => h.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw new Error(`due-work handler ${duplicate} is defined twice`);
  return handlers;
}

/**
 * Wires the ports into a context, and makes what the app keeps while it runs (decision 475): every copy of the
 * context (a command's, with its transaction as `db`) shares these objects, and nothing of the kind lives in
 * module scope. Tests that open their own database call this too, so they run the real wiring; a test that wants
 * another clock or mode builds its context here again rather than by copying one.
 */
export function createContext(
  base: ContextBase,
  modules: readonly AppModule[] = appModules,
): AppContext {
  assertLimits();
  return {
    ...base,
    ledger: createLedger(),
    processor: processorFor(base.config.mode),
    paymentExtensions,
    settlementHolds,
    ...refundPorts,
    payoutSenders: fintocPayoutSenders,
    accounts: accountDirectory(base.db, base.secrets, base.changes ?? null, base.clock),
    accountClock: createAccountClock(base.clock, base.config.mode, base.changes),
    dueWork: dueWorkRegistry(modules),
    referenceData: referenceData(),
    checkoutLinkKey: new Memo(),
    transactionCreateGroups: transactionCreateGroups(base.engine),
    paymentSuccessGroups: paymentSuccessGroups(base.engine),
    attemptClaimGroups: attemptClaimGroups(base.engine),
    payoutGroups: new PayoutGroups(base.engine),
    walletSummaryReads: walletSummaryReads(base.engine),
    transactionRowReads: transactionRowReads(base.engine),
  };
}

/** PGlite's tar of its files, taken under its query lock (so between two statements), uncompressed: the
 *  caller compresses it without holding the lock. */
function dumpOf(pglite: PGlite): () => Promise<Blob> {
  return () => pglite.dumpDataDir('none');
}

/** The database as an operator names it: its URL without the password, or the embedded database's directory. */
function databaseWhere(config: Config): string {
  return config.databaseUrl !== null
    ? redactedUrl(config.databaseUrl)
    : path.resolve(config.dataDir);
}

/** Refuses a database opened for reading whose schema is behind this code's. */
async function assertSchemaCurrent(handle: DatabaseHandle, config: Config): Promise<void> {
  const pending = await pendingMigrations(handle.db);
  if (pending.length === 0) return;
  const where = databaseWhere(config);
  throw new StartupError(
    `the database at ${where} is behind this cobro: ${pending.length} migration(s) not applied (${pending.join(', ')}); ` +
      'this command only reads and never migrates: run `cobro migrate` first',
  );
}

function logOpening(logger: Logger, config: Config): void {
  if (config.databaseUrl !== null) {
    logger.info(
      { database: redactedUrl(config.databaseUrl) },
      `opening PostgreSQL at ${redactedUrl(config.databaseUrl)}`,
    );
  } else if (embeddedDatabaseExists(config.dataDir)) {
    logger.info(
      { dataDir: path.resolve(config.dataDir) },
      `opening the embedded database (PGlite) in ${path.resolve(config.dataDir)}`,
    );
  } else {
    logger.info(
      { dataDir: path.resolve(config.dataDir) },
      `creating the embedded database (PGlite) in ${path.resolve(config.dataDir)}: the first start takes a few seconds`,
    );
  }
}

/**
 * The start's migrations, applied saying so, each as it begins and ends (issue 32, decision 1022). `unbounded` opens a
 * connection of their own when the handle's statements give up after a request's bound (`cobro serve`'s, decision
 * 685): an index built on a large table, or the migration lock another process holds while it migrates, take as long
 * as they take, and a start failed on them failed again at every restart (decision 840).
 */
async function migrateAtStart(
  handle: DatabaseHandle,
  logger: Logger,
  unbounded: (() => Promise<DatabaseHandle>) | null,
  watchdog: RuntimeOptions['readyWatchdog'],
): Promise<void> {
  const pending = await pendingMigrations(handle.db);
  if (pending.length === 0) return;
  logger.info(
    { pending: pending.length },
    `migrating the database: ${pending.length} migration(s) to apply`,
  );
  watchdog?.migrating();
  try {
    const own = unbounded === null ? null : await unbounded();
    try {
      const { applied } = await migrateToLatest((own ?? handle).db, (line) => logger.info(line));
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    } finally {
      await own?.close();
    }
  } finally {
    watchdog?.migrated();
  }
}

/** Opens the start's migrations their own handle when `cobro serve` bounds its statements (decision 840). */
function unboundedOpener(
  config: Config,
  options: RuntimeOptions,
): (() => Promise<DatabaseHandle>) | null {
  const { databaseUrl } = config;
  if (databaseUrl === null || options.handle !== undefined || options.queryTimeoutMs === undefined)
    return null;
  return () => openDatabase({ engine: 'postgres', url: databaseUrl, poolSizeMax: 1 });
}

/** The opened database made ready to serve (migrated, or checked current; its mode checked), and its secrets. */
async function preparedSecrets(
  handle: DatabaseHandle,
  config: Config,
  options: RuntimeOptions,
  logger: Logger,
): Promise<SecretBox> {
  const readOnly = options.readOnly === true;
  if (readOnly) {
    await assertSchemaCurrent(handle, config);
  } else if (options.migrate !== false) {
    await migrateAtStart(handle, logger, unboundedOpener(config, options), options.readyWatchdog);
  }
  if (options.keyless === true)
    return keylessSecretBox('cobro migrate opens no secret (decision 815)');
  // A sandbox's database never serves production, nor the other way round (decision 930): refused before the key
  // (no sandbox key file made for a production database), recorded only once the key opened the database's
  // secrets, so a start refused for its key leaves no mode behind (decision 955).
  const where = databaseWhere(config);
  if (!readOnly) await assertDatabaseMode(handle.db, config.mode, where, false);
  // After migrating, so the key is checked against the secrets the database holds (decision 690).
  const secrets = await databaseSecrets(handle.db, config, !readOnly);
  if (!readOnly) await assertDatabaseMode(handle.db, config.mode, where, true);
  if (!readOnly) await assertTrustedAccountsExist(handle.db, config);
  return secrets;
}

export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel, config.logFormat);
  if (options.handle === undefined && config.databaseUrl !== null)
    await checkPostgresReachable(config.databaseUrl);
  const readOnly = options.readOnly === true;
  // A line per step of a start (issue 32): the first start's seconds of creating and migrating are not silence.
  if (options.handle === undefined && !readOnly) logOpening(logger, config);
  const handle =
    options.handle ??
    (config.databaseUrl !== null
      ? await openDatabase({
          engine: 'postgres',
          url: config.databaseUrl,
          readOnly,
          preparedStatements: config.dbPreparedStatements,
          ...(options.queryTimeoutMs !== undefined
            ? { queryTimeoutMs: options.queryTimeoutMs }
            : {}),
        })
      : await openDatabase({ engine: 'pglite', dataDir: config.dataDir, readOnly }));
  let secrets;
  try {
    secrets = await preparedSecrets(handle, config, options, logger);
  } catch (error) {
    // The database (and DATA_DIR's lock) is released when the process cannot start, not held until exit.
    if (options.handle === undefined) await handle.close();
    throw error;
  }
  // PGlite's files in DATA_DIR: writes stop before its disk is full (decision 420). PostgreSQL minds its own disk.
  const diskSpace =
    handle.engine === 'pglite' && !readOnly && options.handle === undefined
      ? watchDiskSpace(
          config.dataDir,
          limits.dataDirFreeBytesMin,
          limits.dataDirSpaceCheckMs,
          logger,
        )
      : undefined;
  const ctx = createContext({
    db: handle.db,
    engine: handle.engine,
    pool: handle.pool,
    config,
    clock: options.clock ?? systemClock,
    secrets,
    logger,
    changes: handle.changes,
    ...(diskSpace !== undefined ? { diskSpace } : {}),
    ...(handle.pglite !== null ? { dumpDataDir: dumpOf(handle.pglite) } : {}),
  });
  return {
    ctx,
    handle,
    close: () => {
      diskSpace?.stop();
      return handle.close();
    },
  };
}

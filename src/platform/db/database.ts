// Opens the storage port: embedded PGlite in DATA_DIR, or PostgreSQL named by DATABASE_URL. Same SQL on both.
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { limits } from '../../limits/index.ts';
import type { Database } from './types.ts';
import { dataDirEntries, restrictUmask, tightenTree } from '../process/fs-permissions.ts';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { makeDataDir } from '../process/data-dir.ts';
import { StartupError, errorText } from '../process/startup-error.ts';
import { pgliteChangeFeed, postgresChangeFeed, type ChangeFeed } from './change-feed.ts';
import { prepareRepeatedStatements, StatementNames } from './prepared-statements.ts';
import { keepWasmOnLiftoff } from './pglite/liftoff.ts';
import { closingOnReadTimeout } from './query-timeout.ts';
import { sessionName } from './session-name.ts';
import {
  clientForPrimary,
  parseHostList,
  primaryHost,
  withoutQuerySecrets,
} from './primary-host.ts';

export type Engine = 'pglite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly engine: Engine;
  close(): Promise<void>;
  /** The embedded instance, when the engine is PGlite (tests snapshot it). */
  readonly pglite: PGlite | null;
  /** Change notifications from this database (LISTEN/NOTIFY), for copies kept in memory. */
  readonly changes: ChangeFeed;
  /** The pool behind a PostgreSQL handle (Kysely keeps its own reference private); null on PGlite. */
  readonly pool: pg.Pool | null;
}

/** What /metrics reports of a pool. */
export type PoolCounts = Pick<pg.Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;

const INT8_OID = 20;

/**
 * `readOnly`: every transaction is read-only (`default_transaction_read_only`), so a command that only reads cannot
 * change the database even by mistake; on PGlite a DATA_DIR without a database is refused instead of created.
 */
export type OpenOptions =
  | {
      engine: 'postgres';
      url: string;
      poolSizeMax?: number;
      readOnly?: boolean /** Named statements (decision 230); default on. */;
      preparedStatements?: boolean;
      /** A statement unanswered this long ends its connection (decision 685); none when absent. */
      queryTimeoutMs?: number;
    }
  | { engine: 'pglite'; dataDir: string | null; loadDataDir?: Blob; readOnly?: boolean };

/**
 * PostgreSQL's settings in PGlite. Its shared memory lives in the WebAssembly heap, which is touched whole at start
 * and never shrinks, so each MB sized here is a MB of RSS (decisions 210 and 240). PGlite runs one backend in
 * single-user mode: the slots PostgreSQL sizes for 100 connections and 10 WAL senders (the lock table, the predicate
 * locks, each backend's state) were 4 of its 16 MB of shared memory.
 */
const pgliteSettings: readonly string[] = [
  `shared_buffers=${limits.pgliteSharedBuffersMb}MB`,
  'max_connections=1',
  'max_wal_senders=0',
  `max_locks_per_transaction=${limits.pgliteMaxLocksPerTransaction}`,
  // A new 16 MB WAL segment is created by writing its last byte instead of zeros throughout: through Emscripten's
  // file system the zeros were sixteen 1 MB copies in JavaScript, garbage that stayed resident until a collection.
  'wal_init_zero=off',
];

/** The PostgreSQL data directory of an embedded database that exists (PGlite writes PG_VERSION when it creates one). */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, dataDirEntries.database, 'PG_VERSION'));
}

/** `cobro restore` was writing DATA_DIR when it stopped (its marker is still there, decision 880). */
function restoreUnfinished(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, dataDirEntries.restoring));
}

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  return options.engine === 'postgres' ? openPostgres(options) : openPglite(options);
}

async function openPostgres(
  options: Extract<OpenOptions, { engine: 'postgres' }>,
): Promise<DatabaseHandle> {
  // Imported here, not at the top: an embedded database never needs the driver (decision 240).
  const { default: pg } = await import('pg');
  // Several hosts (decision 522): connections go to the one found read-write, found again after a failover.
  const hosts = parseHostList(options.url);
  const primary = hosts.urls.length > 1 ? primaryHost(pg, hosts) : null;
  await primary?.probe();
  const client = primary !== null ? clientForPrimary(pg, primary) : pg.Client;
  const pool = new pg.Pool({
    connectionString: primary?.url() ?? options.url,
    application_name: sessionName,
    // Only a bounded pool has statements that time out; the others' queries go as they are.
    Client: options.queryTimeoutMs !== undefined ? closingOnReadTimeout(client) : client,
    max: options.poolSizeMax ?? limits.dbPoolSizeMax,
    // A host gone silent (crashed, partitioned) neither refuses nor answers: a connection, or a wait for a pooled
    // one, gives up after this and the request answers 503 (decision 685); keepalive finds idle ones dead.
    connectionTimeoutMillis: limits.dbConnectTimeoutMs,
    keepAlive: true,
    ...(options.queryTimeoutMs !== undefined ? { query_timeout: options.queryTimeoutMs } : {}),
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? (v: string) => BigInt(v)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client's error (server restart) must not crash the process; the pool replaces the client.
  pool.on('error', () => {});
  // Nor a checked-out one's (decision 420): a server that shuts down sends its clients an error between two
  // queries of a transaction, which pg emits as an 'error' event, fatal with no listener. Its query in flight, or
  // its next one, fails instead ("not queryable"), the request answers 503, and the pool never takes the client back.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  // Queued on each new client before anything the pool hands it out for.
  if (options.readOnly === true)
    pool.on('connect', (client) => {
      client.query('SET default_transaction_read_only = on').catch(() => {});
    });
  if (options.preparedStatements !== false) {
    const names = new StatementNames();
    pool.on('connect', (client) => prepareRepeatedStatements(client, names));
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const changes = postgresChangeFeed(primary !== null ? () => primary.url() : options.url);
  return {
    db,
    engine: 'postgres',
    pglite: null,
    pool,
    changes,
    close: async () => {
      await changes.close();
      await db.destroy();
    },
  };
}

async function openPglite(
  options: Extract<OpenOptions, { engine: 'pglite' }>,
): Promise<DatabaseHandle> {
  let dir: string | undefined;
  let lock: DataDirLock | null = null;
  if (options.dataDir !== null) {
    // A restore cut short (decision 880) left a database that may be missing files: never opened but by a restore.
    if (options.loadDataDir === undefined && restoreUnfinished(options.dataDir))
      throw new StartupError(
        `a restore into ${path.resolve(options.dataDir)} (DATA_DIR) did not finish (${dataDirEntries.restoring} is there): empty the directory and run \`cobro restore\` again`,
      );
    if (options.readOnly === true && !embeddedDatabaseExists(options.dataDir)) {
      throw new StartupError(
        `no Cobro database in ${path.resolve(options.dataDir)} (DATA_DIR): this command only reads and creates none; \`cobro migrate\` or \`cobro serve\` creates it`,
      );
    }
    // The database's files are the operator's alone (decision 072): new ones get no group or other bits.
    restrictUmask();
    dir = path.join(options.dataDir, dataDirEntries.database);
    makeDataDir(options.dataDir);
    lock = lockDataDir(options.dataDir);
  }
  // PGlite.create waits on WebAssembly compiles and file reads that hold no handle on the event loop. With nothing
  // to wait on, Node leaves the loop and drains V8's background tasks (NodePlatform::DrainTasks), where a start hung
  // for good (Node issue 54918, decision 410): a ref'd timer keeps the loop turning until the database is open.
  const keepLoopAlive = setInterval(() => {}, 1000);
  keepWasmOnLiftoff();
  let pglite: PGlite;
  try {
    // Imported here, not at the top: a server on PostgreSQL never needs it (about 7 MB of RSS, decision 575).
    const { PGlite } = await import('@electric-sql/pglite');
    pglite = await PGlite.create({
      ...(dir !== undefined ? { dataDir: dir } : {}),
      ...(options.loadDataDir !== undefined ? { loadDataDir: options.loadDataDir } : {}),
      parsers: { [INT8_OID]: (v: string) => BigInt(v) },
      startParams: [
        ...PGlite.defaultStartParams,
        ...pgliteSettings.flatMap((setting) => ['-c', setting]),
      ],
    });
  } catch (error) {
    lock?.release();
    throw error;
  } finally {
    clearInterval(keepLoopAlive);
  }
  // PGlite writes a new database's files with mode 0666 whatever the umask; what it creates later honours it.
  if (dir !== undefined) tightenTree(dir);
  // One connection: the setting holds for every transaction Kysely runs on it.
  if (options.readOnly === true) await pglite.exec('SET default_transaction_read_only = on');
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  const changes = pgliteChangeFeed(pglite);
  return {
    db,
    engine: 'pglite',
    pglite,
    pool: null,
    changes,
    close: async () => {
      await changes.close();
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      lock?.release();
    },
  };
}

/** DATABASE_URL without its passwords (the user part's and the query's), for messages. */
export function redactedUrl(url: string): string {
  let masked: string;
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    masked = u.toString();
  } catch {
    // Several hosts (db1:5432,db2:5432) are no WHATWG URL: the password is masked by hand.
    if (!/^postgres(ql)?:\/\//.test(url)) return 'DATABASE_URL';
    masked = url.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
  }
  return withoutQuerySecrets(masked);
}

/**
 * One connection to DATABASE_URL before a process starts on it, so an unreachable server, a refused login or a
 * missing database is one sentence, not a stack from the first migration. Its own client: the pool keeps no
 * connect timeout, since there a wait for a free client under load is not a failure.
 */
export async function checkPostgresReachable(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const hosts = parseHostList(url);
  if (hosts.urls.length > 1) {
    const reasons = await primaryHost(pg, hosts).probe();
    if (reasons !== null)
      throw new StartupError(
        `cannot reach a ${hosts.readWrite ? 'read-write ' : ''}database among ${redactedUrl(url)}: ${reasons.join('; ')}`,
      );
    return;
  }
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: limits.dbStartupConnectTimeoutMs,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw new StartupError(`cannot reach the database at ${redactedUrl(url)}: ${errorText(error)}`);
  } finally {
    await client.end().catch(() => {});
  }
}

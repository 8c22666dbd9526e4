// What every service needs, built once by the composition root (src/runtime.ts) and passed down: no module-level
// singletons, no registry filled by imports. Ports (interfaces) live in platform; their implementations are wired
// in runtime.ts, so platform code never imports a module. What an app learns or keeps while it runs (the offsets
// of the account clock, the reference catalogue, the checkout-link key, the group commits' queues) is made there
// too, once per app, and lives on the context, never in a module-scope map keyed by the app or a context (STYLE
// rule 21, decision 475): a command's context is a copy of the app's with its transaction as `db`, and every copy
// shares those objects. Modules declare what they keep by augmenting AppContext (as transactions/extension.ts
// does); test/tidy.test.ts fails on a module-scope map outside its list of pure caches.
import type { ChangeFeed } from './db/change-feed.ts';
import type { DiskSpaceGuard } from './db/disk-space.ts';
import type { Logger } from 'pino';
import type { AccountDirectory } from './auth/account-directory.ts';
import type { Clock } from './time/clock.ts';
import type { Config } from './process/config.ts';
import type { Db } from './db/types.ts';
import type { Engine, PoolCounts } from './db/database.ts';
import type { Ledger } from './ledger/ledger.ts';
import type { PaymentProcessor } from './processors/processor.ts';
import type { AccountClock } from './time/sandbox-clock.ts';
import type { SecretBox } from './auth/secrets.ts';

/** What a process opens before the context can be wired (src/runtime.ts): everything else is derived from these. */
export interface ContextBase {
  readonly db: Db;
  readonly engine: Engine;
  readonly config: Config;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly logger: Logger;
  /** The PostgreSQL pool's connection counts, for /metrics; null on PGlite (one in-process connection). */
  readonly pool: PoolCounts | null;
  /** The database's change notifications, where the process may keep copies (absent: nothing is kept). */
  readonly changes?: ChangeFeed;
  /** The embedded database's free-space guard (decision 420): writes wait while DATA_DIR is almost full. */
  readonly diskSpace?: DiskSpaceGuard;
  /**
   * The embedded database's files as one uncompressed tar, read while no statement runs (PGlite's dumpDataDir):
   * what `cobro backup` writes. Absent on PostgreSQL, whose own tools back it up (docs/operations.md).
   */
  readonly dumpDataDir?: () => Promise<Blob>;
}

export interface AppContext extends ContextBase {
  /** The only way money moves (src/platform/ledger/ledger.ts). */
  readonly ledger: Ledger;
  /** The deployment's payment processor (processorFor(mode)). */
  readonly processor: PaymentProcessor;
  /** Account lookups for platform code (auth, callback signing), implemented by modules/accounts. */
  readonly accounts: AccountDirectory;
  /** "Now" as an account sees it (its sandbox clock): the one way to read an account's time. */
  readonly accountClock: AccountClock;
  /** Every time-driven handler, in the order a drain runs them: the platform's, then each module's. */
  readonly dueWork: readonly DueWorkHandler[];
}

// Declared here rather than in due-work.ts because a handler takes the context and the context lists the
// handlers: one file keeps the two types from importing each other.
export interface DueWorkScope {
  /** Only this account's rows, when set (sandbox clock advance). */
  readonly accountId?: string;
  /** Rows to process at most in one call. */
  readonly limit: number;
}

export interface DueWorkHandler {
  /** Stable: it keys the `processed` counts of a sandbox clock advance. */
  readonly name: string;
  /** Processes due rows and returns how many it processed. */
  run(ctx: AppContext, scope: DueWorkScope): Promise<number>;
  /** Rows one call may process, when the handler writes them set-based (a limit in src/limits); dueWorkBatchMax otherwise. */
  readonly batchMax?: number;
  /**
   * Rows one drain may process in all, for a handler whose rows are calls to a processor that limits its rate (a
   * limit in src/limits, decision 1065): one drain is one beat of the due-work worker, so this paces the process.
   */
  readonly drainMax?: number;
}

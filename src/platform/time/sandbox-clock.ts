// Per-account sandbox time: the service clock plus an offset the merchant moves forward through the API, so
// settlements, expiries and payouts can be tested without waiting (supplement §6.3). Production has no offsets.
// Read through the app's AccountClock (`ctx.accountClock`, decision 475), never through functions of this file.
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Clock } from './clock.ts';
import type { Mode } from '../process/config.ts';
import type { DbOrTx, Int8, Timestamp } from '../db/types.ts';
import { NotifiedCache } from '../db/notified-cache.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import { limits } from '../../limits/index.ts';

interface SandboxClockTable {
  account_id: string;
  offset_ms: Int8;
  updated_at: Timestamp;
}

declare module '../db/types.ts' {
  interface Database {
    sandbox_clocks: SandboxClockTable;
  }
}

/** The channel migration 0260's trigger notifies when any account's sandbox clock moves. */
export const sandboxClockChangesChannel = 'cobro_sandbox_clock_changed';

/**
 * The one way to read an account's time (decision 475): the service clock plus, in sandbox mode, the offset the
 * merchant moved the account's clock by; the service clock alone in production, where nothing is read. One per
 * app, built by the composition root (src/runtime.ts) as `ctx.accountClock`, which keeps the offsets this process
 * has read. Every read names the database it reads in (`ctx.db`: the command's transaction, or the database).
 */
export interface AccountClock {
  /**
   * "Now" as the account sees it, its offset read in `db`. With `{ kept: true }` the offset this process keeps
   * while the change feed is live serves instead (decision 260: a hot path learns its account's "now" without a
   * round trip), read in `db` only on a miss and every time without a feed.
   */
  now(accountId: string, db: DbOrTx, read?: { readonly kept: boolean }): Promise<Date>;
  /**
   * Whether a kept "now" costs no round trip after its first (sandbox, the change feed live): a statement that
   * computes "now" itself is given one only then (the create's INSERT, decisions 200 and 250).
   */
  keepsOffsets(): boolean;
  /** SQL for "now as the row's account sees it", for due-work queries: the offset read by the statement itself. */
  nowSql(accountIdColumn: Expression<string>): RawBuilder<Date>;
  /** The account's offset in milliseconds, read in `db`: 0 when its clock never moved. */
  offsetMs(accountId: string, db: DbOrTx): Promise<number>;
  /** Moves the account's clock forward; its new offset, or null (nothing changed) past limits.sandboxOffsetMsMax. */
  advance(accountId: string, deltaMs: number, db: DbOrTx): Promise<number | null>;
  /**
   * Drops this process's kept offsets at once, after it moved a clock: its own next request must see the move, and
   * the trigger's notification reaches this process a moment after the commit.
   */
  forget(): void;
}

async function offsetMsIn(db: DbOrTx, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('sandbox_clocks')
    .select('offset_ms')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row === undefined ? 0 : Number(row.offset_ms);
}

/** The offset of the account the expression names, in SQL: 0 when its clock never moved. */
function offsetMsSql(accountId: Expression<string>): RawBuilder<bigint> {
  return sql<bigint>`COALESCE((SELECT sc.offset_ms FROM sandbox_clocks sc WHERE sc.account_id = ${accountId}), 0)`;
}

/** The app's account clock on the service `clock`; `changes`, when given, lets it keep offsets (decision 260). */
export function createAccountClock(
  clock: Clock,
  mode: Mode,
  changes: ChangeFeed | undefined,
): AccountClock {
  // The offsets this process read, dropped whole when any clock moves (NotifiedCache).
  const kept =
    changes === undefined
      ? null
      : new NotifiedCache<number>(
          changes,
          sandboxClockChangesChannel,
          limits.sandboxOffsetsKeptMax,
          limits.sandboxOffsetKeptAgeMsMax,
        );
  // A kept offset without the cache's promise when it is there: a create's hot path (decision 320).
  const keptOffsetMs = async (accountId: string, db: DbOrTx): Promise<number> =>
    kept === null
      ? offsetMsIn(db, accountId)
      : (kept.peek(accountId) ?? (await kept.get(accountId, () => offsetMsIn(db, accountId))) ?? 0);
  return {
    async now(accountId, db, read) {
      if (mode !== 'sandbox') return clock.now();
      const offsetMs =
        read?.kept === true ? await keptOffsetMs(accountId, db) : await offsetMsIn(db, accountId);
      return new Date(clock.now().getTime() + offsetMs);
    },
    keepsOffsets: () => mode === 'sandbox' && changes !== undefined && changes.live(),
    nowSql(accountIdColumn) {
      const now = clock.now();
      if (mode !== 'sandbox') return sql<Date>`${now}::timestamptz`;
      return sql<Date>`(${now}::timestamptz + ${offsetMsSql(accountIdColumn)} * INTERVAL '1 millisecond')`;
    },
    offsetMs: (accountId, db) => offsetMsIn(db, accountId),
    async advance(accountId, deltaMs, db) {
      if (!Number.isSafeInteger(deltaMs) || deltaMs < 0 || deltaMs > limits.sandboxAdvanceMsMax)
        throw new RangeError('delta out of range');
      // The bound is checked in the upsert itself, so concurrent advances cannot pass it together.
      const row = await db
        .insertInto('sandbox_clocks')
        .values({ account_id: accountId, offset_ms: deltaMs, updated_at: clock.now() })
        .onConflict((oc) =>
          oc
            .column('account_id')
            .doUpdateSet({
              offset_ms: sql<bigint>`sandbox_clocks.offset_ms + ${deltaMs}`,
              updated_at: clock.now(),
            })
            .where(
              sql<boolean>`sandbox_clocks.offset_ms + ${deltaMs} <= ${limits.sandboxOffsetMsMax}`,
            ),
        )
        .returning('offset_ms')
        .executeTakeFirst();
      // Outside a transaction this is after the commit; inside one the caller forgets again once it committed.
      kept?.forget();
      return row === undefined ? null : Number(row.offset_ms);
    },
    forget: () => kept?.forget(),
  };
}

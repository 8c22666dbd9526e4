// Per-account sandbox time: the service clock plus an offset the merchant moves forward through the API, so
// settlements, expiries and payouts can be tested without waiting (supplement §6.3). Production has no offsets.
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Generated } from 'kysely';
import type { AppContext } from './context.ts';
import type { DbOrTx, Int8, Timestamp } from './db/types.ts';
import { NotifiedCache } from './db/notified-cache.ts';
import type { ChangeFeed } from './db/change-feed.ts';
import { appKeyOf } from './app-memo.ts';
import { limits } from '../limits.ts';

export interface SandboxClockTable {
  account_id: string;
  offset_ms: Int8;
  updated_at: Timestamp;
}

declare module './db/types.ts' {
  interface Database {
    sandbox_clocks: SandboxClockTable;
  }
}

export type { Generated };

export async function accountOffsetMs(db: DbOrTx, accountId: string): Promise<number> {
  const row = await db.selectFrom('sandbox_clocks').select('offset_ms').where('account_id', '=', accountId).executeTakeFirst();
  return row === undefined ? 0 : Number(row.offset_ms);
}

/** The channel migration 0260's trigger notifies when any account's sandbox clock moves. */
export const sandboxClockChangesChannel = 'cobro_sandbox_clock_changed';

/** Per app (one database): the offsets this process read, dropped whole when any clock moves. */
const keptOffsets = new WeakMap<object, NotifiedCache<number>>();

/**
 * The account's offset, kept in memory while the database's change feed is live (decision 260): a payout learns its
 * account's "now" without a round trip. Read again after any clock moved, and every time without a feed.
 */
export async function keptAccountOffsetMs(ctx: AppContext, accountId: string): Promise<number> {
  if (ctx.changes === undefined) return accountOffsetMs(ctx.db, accountId);
  const offsetMs = await keptOffsetsOf(ctx, ctx.changes).get(accountId, () => accountOffsetMs(ctx.db, accountId));
  return offsetMs ?? 0;
}

function keptOffsetsOf(ctx: AppContext, changes: ChangeFeed): NotifiedCache<number> {
  const app = appKeyOf(ctx);
  let kept = keptOffsets.get(app);
  if (kept === undefined) {
    kept = new NotifiedCache<number>(changes, sandboxClockChangesChannel, limits.sandboxOffsetsKeptMax, limits.sandboxOffsetKeptAgeMsMax);
    keptOffsets.set(app, kept);
  }
  return kept;
}

/** "Now" as the account sees it, from its kept offset (keptAccountOffsetMs); the service clock alone in production. */
export async function keptAccountNow(ctx: AppContext, accountId: string): Promise<Date> {
  if (ctx.config.mode !== 'sandbox') return ctx.clock.now();
  return accountNowFromOffset(ctx, await keptAccountOffsetMs(ctx, accountId));
}

/**
 * The account's "now" when its offset is kept (a sandbox account while the change feed is live: one read on a miss,
 * none after), else null: for a statement that computes "now" itself when it is not given (the create's INSERT,
 * decision 250), so binding it never costs a round trip that the statement would have saved.
 */
export async function keptAccountNowIfKept(ctx: AppContext, accountId: string): Promise<Date | null> {
  if (ctx.config.mode !== 'sandbox' || ctx.changes === undefined || !ctx.changes.live()) return null;
  // A kept offset without the promises of keptAccountOffsetMs: a create's hot path (decision 320).
  const offsetMs = keptOffsetsOf(ctx, ctx.changes).peek(accountId) ?? await keptAccountOffsetMs(ctx, accountId);
  return accountNowFromOffset(ctx, offsetMs);
}

/**
 * Drops this process's kept offsets at once, after it moved a clock: its own next request must see the move, and
 * the trigger's notification reaches this process a moment after the commit.
 */
export function forgetKeptOffsets(ctx: AppContext): void {
  keptOffsets.get(appKeyOf(ctx))?.forget();
}

/** The offset of the account the expression names, in SQL: 0 when its clock never moved. */
function offsetMsSql(accountId: Expression<string>): RawBuilder<bigint> {
  return sql<bigint>`COALESCE((SELECT sc.offset_ms FROM sandbox_clocks sc WHERE sc.account_id = ${accountId}), 0)`;
}

/** "Now" as one account sees it, from its offset (keptAccountOffsetMs); the service clock alone in production. */
export function accountNowFromOffset(ctx: AppContext, offsetMs: number): Date {
  const now = ctx.clock.now();
  return ctx.config.mode === 'sandbox' ? new Date(now.getTime() + offsetMs) : now;
}

/** "Now" as one account sees it. */
export async function accountNow(ctx: AppContext, accountId: string, db: DbOrTx = ctx.db): Promise<Date> {
  if (ctx.config.mode !== 'sandbox') return ctx.clock.now();
  return accountNowFromOffset(ctx, await accountOffsetMs(db, accountId));
}

/** The account's new offset, or null (nothing changed) when the advance would pass limits.sandboxOffsetMsMax. */
export async function advanceAccountClock(ctx: AppContext, accountId: string, deltaMs: number): Promise<number | null> {
  if (!Number.isSafeInteger(deltaMs) || deltaMs < 0 || deltaMs > limits.sandboxAdvanceMsMax) throw new RangeError('delta out of range');
  // The bound is checked in the upsert itself, so concurrent advances cannot pass it together.
  const row = await ctx.db.insertInto('sandbox_clocks')
    .values({ account_id: accountId, offset_ms: deltaMs, updated_at: ctx.clock.now() })
    .onConflict((oc) => oc.column('account_id')
      .doUpdateSet({ offset_ms: sql<bigint>`sandbox_clocks.offset_ms + ${deltaMs}`, updated_at: ctx.clock.now() })
      .where(sql<boolean>`sandbox_clocks.offset_ms + ${deltaMs} <= ${limits.sandboxOffsetMsMax}`))
    .returning('offset_ms')
    .executeTakeFirst();
  // Outside a transaction this is after the commit; inside one the caller forgets again once it committed.
  forgetKeptOffsets(ctx);
  return row === undefined ? null : Number(row.offset_ms);
}

/**
 * SQL for "now as the row's account sees it", for due-work queries: the service clock plus that account's
 * offset in sandbox mode, the service clock alone in production.
 */
export function accountNowSql(ctx: AppContext, accountIdColumn: Expression<string>): RawBuilder<Date> {
  const now = ctx.clock.now();
  if (ctx.config.mode !== 'sandbox') return sql<Date>`${now}::timestamptz`;
  return sql<Date>`(${now}::timestamptz + ${offsetMsSql(accountIdColumn)} * INTERVAL '1 millisecond')`;
}

/**
 * SQL text for "now as one account sees it" in a statement whose text is written once (decision 200): the
 * parameters name the service clock's now and the account's id. Through migration 0250's function, whose query
 * plan the session keeps, where offsetMsSql's subquery is planned again with every statement.
 */
export function accountNowSqlText(nowParam: string, accountIdParam: string): string {
  return `(${nowParam}::timestamptz + cobro_account_offset_ms(${accountIdParam}) * INTERVAL '1 millisecond')`;
}

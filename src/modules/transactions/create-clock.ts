// The create's one clock (decisions 200, 250, 260): "now" as the account sees it, read at most once per create.
import type { AppContext } from '../../platform/context.ts';

/**
 * The create's one clock: "now" as the account sees it, read at most once. Its sandbox offset is kept in memory
 * while the change feed is live (decision 260), and then the create binds its time (decision 250); without a live
 * feed the offset is read only when a check needs "now" (`now`), and otherwise `forInsert` answers null and the
 * INSERT computes the same time, the service clock plus the account's offset (decision 200): one round trip either way.
 */
export function createClock(ctx: AppContext, accountId: string) {
  let read: Date | null = null;
  return {
    now: async (): Promise<Date> =>
      (read ??= await ctx.accountClock.now(accountId, ctx.db, { kept: true })),
    forInsert: async (): Promise<Date | null> =>
      read ??
      (ctx.accountClock.keepsOffsets()
        ? ctx.accountClock.now(accountId, ctx.db, { kept: true })
        : null),
  };
}

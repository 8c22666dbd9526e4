// The figures of the home page's charts, over the last 30 days of the account's own clock (sandbox time included):
// sales per day (paid transactions by the local day they were paid) and the wallet's available balance at the end
// of each day (the last movement's `balance_after`, carried over days without movements). Days are local days in
// the service zone, grouped by the database.
import { sql } from 'kysely';
import type { AppContext } from '../platform/context.ts';
import { formatDate, parseLocal } from '../platform/time/time-format.ts';
import '../modules/transactions/types.ts';
import '../modules/wallet/repository.ts';
import { dashboardLimits } from '../limits/index.ts';
import type { DayValue } from './charts.ts';

/** The local dates of the window, oldest first, ending today (the account's today). */
export function windowDays(today: string, count: number): string[] {
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  return Array.from({ length: count }, (_, i) =>
    new Date(Date.UTC(y, m - 1, d - (count - 1 - i))).toISOString().slice(0, 10),
  );
}

export async function homeFigures(ctx: AppContext, accountId: string, currency: string) {
  const tz = ctx.config.timeZone;
  const days = windowDays(
    formatDate(await ctx.accountClock.now(accountId, ctx.db), tz),
    dashboardLimits.chartDays,
  );
  const start = parseLocal(days[0]!, tz);
  if (start === null) throw new Error(`window start ${days[0]} does not parse`);
  const localDay = (column: string) =>
    sql<string>`to_char(${sql.ref(column)} AT TIME ZONE ${tz}, 'YYYY-MM-DD')`;

  const sales = await ctx.db
    .selectFrom('transactions')
    .select([
      localDay('ended_at').as('day'),
      sql<string>`sum(amount_minor)`.as('total'),
      sql<string>`count(*)`.as('count'),
    ])
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .where('status', 'in', ['success', 'refunded partial', 'refunded'])
    .where('ended_at', '>=', start)
    .groupBy(sql`1`)
    .execute();
  const salesByDay = new Map(
    sales.map((r) => [r.day, { total: BigInt(r.total), count: Number(r.count) }]),
  );

  const closing = await ctx.db
    .selectFrom('wallet_movements')
    .select([localDay('created_at').as('day'), 'balance_after_minor'])
    .distinctOn(sql`1`)
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .where('created_at', '>=', start)
    .orderBy(sql`1`)
    .orderBy('seq', 'desc')
    .execute();
  const closingByDay = new Map(closing.map((r) => [r.day, BigInt(r.balance_after_minor)]));
  const before = await ctx.db
    .selectFrom('wallet_movements')
    .select('balance_after_minor')
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .where('created_at', '<', start)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();

  let balance = before === undefined ? 0n : BigInt(before.balance_after_minor);
  const balances: DayValue[] = days.map((day) => {
    balance = closingByDay.get(day) ?? balance;
    return { day, value: balance };
  });
  const salesPoints: DayValue[] = days.map((day) => ({
    day,
    value: salesByDay.get(day)?.total ?? 0n,
  }));
  const salesCount = days.reduce((n, day) => n + (salesByDay.get(day)?.count ?? 0), 0);
  const salesTotal = salesPoints.reduce((sum, p) => sum + p.value, 0n);
  return { days, sales: salesPoints, salesCount, salesTotal, balances };
}

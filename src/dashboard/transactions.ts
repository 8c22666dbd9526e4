// What the dashboard reads about one merchant's payments: a filtered, searched page of transactions, and one
// transaction with its timeline. Every query is scoped to the signed-in account, so another account's id finds
// nothing (a 404, never a 403 that would confirm it exists).
import { sql } from 'kysely';
import type { AppContext } from '../platform/context.ts';
import '../platform/notifications/types.ts';
import '../modules/transactions/types.ts';
import '../modules/refunds/types.ts';
import {
  transactionStatuses,
  type TransactionStatus,
} from '../modules/transactions/state-machine.ts';
import { dashboardLimits } from '../limits/index.ts';
import { localDayBounds, pageNumberOf } from './format.ts';

export interface TransactionFilter {
  readonly status: TransactionStatus | null;
  /** Local dates `YYYY-MM-DD`, both inclusive. */
  readonly from: string;
  readonly to: string;
  /** Part of the order, or of the payer's email. */
  readonly q: string;
  readonly page: number;
}

export type FilterProblems = Partial<Record<'status' | 'from' | 'to' | 'q' | 'page', string>>;

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? value.trim().slice(0, max) : '';
}

/** The filter a query string asks for, and what in it could not be used (shown beside the field, not an error page). */
export function parseTransactionFilter(
  query: Record<string, unknown>,
  timeZone: string,
): { filter: TransactionFilter; problems: FilterProblems } {
  const problems: FilterProblems = {};
  const statusText = text(query.status, 40);
  const status = (transactionStatuses as readonly string[]).includes(statusText)
    ? (statusText as TransactionStatus)
    : null;
  if (statusText !== '' && status === null) problems.status = 'Estado desconocido.';
  const from = text(query.from, 10);
  const to = text(query.to, 10);
  if (from !== '' && localDayBounds(from, timeZone) === null)
    problems.from = 'Fecha no válida (AAAA-MM-DD).';
  if (to !== '' && localDayBounds(to, timeZone) === null)
    problems.to = 'Fecha no válida (AAAA-MM-DD).';
  const page = pageNumberOf(query.page, dashboardLimits.pageNumberMax);
  return {
    filter: {
      status,
      from: problems.from === undefined ? from : '',
      to: problems.to === undefined ? to : '',
      q: text(query.q, dashboardLimits.searchLengthMax),
      page,
    },
    problems,
  };
}

/** `%` and `_` typed by the merchant are letters, not wildcards. */
function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function listTransactions(
  ctx: AppContext,
  accountId: string,
  filter: TransactionFilter,
) {
  const tz = ctx.config.timeZone;
  let query = ctx.db.selectFrom('transactions').where('account_id', '=', accountId);
  if (filter.status !== null) query = query.where('status', '=', filter.status);
  const from = filter.from === '' ? null : localDayBounds(filter.from, tz);
  const to = filter.to === '' ? null : localDayBounds(filter.to, tz);
  if (from !== null) query = query.where('created_at', '>=', from.start);
  if (to !== null) query = query.where('created_at', '<', to.end);
  if (filter.q !== '') {
    const pattern = likePattern(filter.q);
    query = query.where((eb) =>
      eb.or([
        eb('order', 'ilike', pattern),
        eb('email', 'ilike', pattern),
        eb('id', '=', filter.q),
      ]),
    );
  }
  const counted = await query
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const rows = await query
    .select([
      'id',
      'number',
      'status',
      'order',
      'email',
      'subject',
      'amount_minor',
      'currency',
      'created_at',
    ])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset((filter.page - 1) * dashboardLimits.rowsPerPage)
    .limit(dashboardLimits.rowsPerPage)
    .execute();
  const declined = await declinedTries(
    ctx,
    rows.map((r) => r.id),
  );
  return {
    total: Number(counted.n),
    rows: rows.map((r) => ({ ...r, declined_tries: declined.get(r.id) ?? 0 })),
  };
}

/** How many of the payer's tries the processor declined, per transaction of one page (a pending sale may have some). */
async function declinedTries(
  ctx: AppContext,
  ids: readonly string[],
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const counts = await ctx.db
    .selectFrom('payment_attempts')
    .select((eb) => ['transaction_id', eb.fn.countAll<string>().as('n')])
    .where('transaction_id', 'in', ids)
    .where('outcome', '=', 'declined')
    .groupBy('transaction_id')
    .execute();
  return new Map(counts.map((c) => [c.transaction_id, Number(c.n)]));
}

export function findTransaction(ctx: AppContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export type TransactionDetailRow = NonNullable<Awaited<ReturnType<typeof findTransaction>>>;

/** The callbacks sent about this transaction (its `payment_key` is in every payload), each with its attempts. */
export async function transactionCallbacks(ctx: AppContext, accountId: string, paymentKey: string) {
  const callbacks = await ctx.db
    .selectFrom('notifications')
    .select([
      'id',
      'event_type',
      'url',
      'status',
      'attempts',
      'created_at',
      'delivered_at',
      'last_status_code',
    ])
    .where('account_id', '=', accountId)
    .where(sql<boolean>`payload->>'payment_key' = ${paymentKey}`)
    .orderBy('created_at')
    .orderBy('id')
    .limit(dashboardLimits.timelineCallbacksMax)
    .execute();
  if (callbacks.length === 0) return [];
  const attempts = await ctx.db
    .selectFrom('notification_attempts')
    .select(['notification_id', 'attempt_no', 'started_at', 'outcome', 'status_code', 'error'])
    .where(
      'notification_id',
      'in',
      callbacks.map((c) => c.id),
    )
    .orderBy('notification_id')
    .orderBy('attempt_no')
    .limit(dashboardLimits.timelineAttemptsMax)
    .execute();
  return callbacks.map((c) => ({
    ...c,
    attemptLog: attempts.filter((a) => a.notification_id === c.id),
  }));
}

export type TransactionCallback = Awaited<ReturnType<typeof transactionCallbacks>>[number];

/** The refunds (nullifications) of this transaction, oldest first. */
export function transactionRefunds(ctx: AppContext, accountId: string, transactionId: string) {
  return ctx.db
    .selectFrom('nullifications')
    .select([
      'id',
      'amount_minor',
      'currency',
      'subject',
      'status',
      'gateway_message',
      'created_at',
      'updated_at',
    ])
    .where('account_id', '=', accountId)
    .where('transaction_id', '=', transactionId)
    .orderBy('seq')
    .limit(dashboardLimits.timelineCallbacksMax)
    .execute();
}

export type TransactionRefund = Awaited<ReturnType<typeof transactionRefunds>>[number];

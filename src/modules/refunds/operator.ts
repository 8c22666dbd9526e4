// The operator's view of refunds across accounts (`cobro refunds list|show`): each refund with the sale it refunds,
// where its money came from, and for one refund its callbacks. Reads only.
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import type { NullificationRow } from './repository.ts';
import { nullificationStatuses, type NullificationStatus } from './states.ts';
import { jsonInteger } from './views.ts';
import { nullificationEvent } from './transition.ts';
import { isUnresolved, unresolvedCondition } from './unresolved.ts';

export interface RefundFilter {
  readonly accountId: string | null;
  readonly status?: NullificationStatus;
  /** A transaction id: only its refunds. */
  readonly transactionId?: string;
  /** Only processor refunds left unresolved (decision 850). */
  readonly unresolved?: true;
  readonly offset: number;
  readonly limit: number;
}

function summary(row: NullificationRow & { order: string }, timeZone: string) {
  return {
    id: row.id,
    account_id: row.account_id,
    transaction_id: row.transaction_id,
    order: row.order,
    amount: jsonInteger(BigInt(row.amount_minor)),
    currency: row.currency,
    status: row.status,
    /** Left unresolved at the processor: the operator's to end (`cobro refunds resolve`, decision 850). */
    unresolved: isUnresolved(row),
    type: row.type,
    fee_back: jsonInteger(BigInt(row.fee_back_minor)),
    from_pending: jsonInteger(BigInt(row.from_pending_minor)),
    from_wallet: jsonInteger(BigInt(row.from_wallet_minor)),
    created_at: formatTimestamp(row.created_at, timeZone),
    updated_at: formatTimestamp(row.updated_at, timeZone),
  };
}

export type RefundSummary = ReturnType<typeof summary>;

const rank = (status: string) => (nullificationStatuses as readonly string[]).indexOf(status);

function refundsQuery(ctx: AppContext) {
  return ctx.db
    .selectFrom('nullifications')
    .innerJoin('transactions', 'transactions.id', 'nullifications.transaction_id');
}

export async function listRefunds(
  ctx: AppContext,
  filter: RefundFilter,
): Promise<{ refunds: RefundSummary[]; total: number }> {
  let q = refundsQuery(ctx);
  if (filter.accountId !== null) q = q.where('nullifications.account_id', '=', filter.accountId);
  if (filter.status !== undefined) q = q.where('nullifications.status', '=', filter.status);
  if (filter.transactionId !== undefined)
    q = q.where('nullifications.transaction_id', '=', filter.transactionId);
  if (filter.unresolved === true) q = q.where(unresolvedCondition);
  const [rows, counted] = await Promise.all([
    q
      .selectAll('nullifications')
      .select('transactions.order')
      .orderBy('nullifications.seq', 'desc')
      .offset(filter.offset)
      .limit(filter.limit)
      .execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { refunds: rows.map((r) => summary(r, ctx.config.timeZone)), total: Number(counted.n) };
}

/** One refund with its processor's answer and its callbacks; null when no refund has that id. */
export async function showRefund(ctx: AppContext, id: string) {
  const row = await refundsQuery(ctx)
    .selectAll('nullifications')
    .select('transactions.order')
    .where('nullifications.id', '=', id)
    .executeTakeFirst();
  if (row === undefined) return null;
  const callbacks = await ctx.db
    .selectFrom('notifications')
    .select([
      'id',
      'status',
      'attempts',
      'created_at',
      sql<string>`payload->>'status'`.as('refund_status'),
    ])
    .where('account_id', '=', row.account_id)
    .where('event_type', '=', nullificationEvent)
    .where(sql<string>`COALESCE(payload->>'id_nullification', payload->>'id')`, '=', id)
    .execute();
  const payout =
    row.payout_id === null
      ? undefined
      : await ctx.db
          .selectFrom('payouts')
          .select([
            'id',
            'status',
            'accountbank_sbif',
            'accountbank_num',
            'accountbank_name',
            'reason_rejection',
          ])
          .where('id', '=', row.payout_id)
          .executeTakeFirst();
  return {
    ...summary(row, ctx.config.timeZone),
    subject: row.subject,
    channel: row.channel,
    payout:
      payout === undefined
        ? null
        : {
            id: payout.id,
            status: payout.status,
            bank: payout.accountbank_sbif,
            num_last4: payout.accountbank_num.slice(-4),
            name: payout.accountbank_name,
            reason_rejection: payout.reason_rejection,
          },
    payment: { gateway: row.gateway, payment_type: row.payment_type },
    refund_code: row.refund_code,
    gateway_message: row.gateway_message,
    dispatch_attempts: row.dispatch_attempts,
    // Several changes in one commit share a time: then the life cycle orders them.
    callbacks: callbacks
      .sort(
        (x, y) =>
          x.created_at.getTime() - y.created_at.getTime() ||
          rank(x.refund_status) - rank(y.refund_status),
      )
      .map((c) => ({
        id: c.id,
        refund_status: c.refund_status,
        status: c.status,
        attempts: c.attempts,
        created_at: formatTimestamp(c.created_at, ctx.config.timeZone),
      })),
  };
}

export type RefundDetail = NonNullable<Awaited<ReturnType<typeof showRefund>>>;

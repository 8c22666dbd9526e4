// The operator's and the dashboard's view of subscriptions (not a reference shape): one line per subscription
// with its plan, client, next charge and last payment, filtered and paged; and one subscription with its cycles.
// `cobro subscriptions list|show` and the dashboard's pages read through here, scoped to one account or, for the
// operator, to all.
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx } from '../../platform/db/types.ts';
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import type { SubscriptionStatus } from './states.ts';
import { planView } from './plan-service.ts';
import { planCounts } from './subscription-repository.ts';
import { readParts } from './subscription-parts.ts';
import { subscriptionView } from './subscription-views.ts';
import './types.ts';

export interface SummaryFilter {
  /** Null: every account's (the operator). */
  readonly accountId: string | null;
  readonly status?: SubscriptionStatus;
  readonly planId?: string;
  readonly offset: number;
  readonly limit: number;
}

export interface SubscriptionSummary {
  readonly id: string;
  readonly account_id: string;
  readonly status: SubscriptionStatus;
  readonly plan: { readonly id: string; readonly name: string; readonly type: string };
  readonly client: { readonly id: string; readonly name: string; readonly email: string };
  /** What a cycle charges: the subscription's amount (variable), the plan's (fixed), null (consumption). */
  readonly amount: number | null;
  readonly created_at: string;
  readonly next_charge_at: string | null;
  readonly last_payment: {
    readonly at: string;
    readonly amount: number;
    readonly status: string;
  } | null;
}

export interface SummaryPage {
  readonly total: number;
  readonly subscriptions: readonly SubscriptionSummary[];
}

function filtered(db: DbOrTx, filter: SummaryFilter) {
  let q = db.selectFrom('su_subscriptions as s');
  if (filter.accountId !== null) q = q.where('s.account_id', '=', filter.accountId);
  if (filter.status !== undefined) q = q.where('s.status', '=', filter.status);
  if (filter.planId !== undefined) q = q.where('s.plan_id', '=', filter.planId);
  return q;
}

/** The latest payment (not the enrolment's card check) of each subscription named, by subscription id. */
async function lastPayments(db: DbOrTx, ids: readonly string[]) {
  if (ids.length === 0) return new Map<string, { at: Date; amount: bigint; status: string }>();
  const rows = await db
    .selectFrom('su_charges as c')
    .innerJoin('transactions as t', 't.id', 'c.transaction_id')
    .select(['c.subscription_id', 'c.created_at', 't.amount_minor', 't.status'])
    .distinctOn('c.subscription_id')
    .where('c.subscription_id', 'in', [...ids])
    .where('c.kind', '!=', 'verification')
    .orderBy('c.subscription_id')
    .orderBy('c.seq', 'desc')
    .execute();
  return new Map(
    rows.map((r) => [
      r.subscription_id,
      { at: r.created_at, amount: BigInt(r.amount_minor), status: r.status },
    ]),
  );
}

/** Newest first. */
export async function listSubscriptionSummaries(
  ctx: AppContext,
  filter: SummaryFilter,
): Promise<SummaryPage> {
  const tz = ctx.config.timeZone;
  const count = await filtered(ctx.db, filter)
    .select(ctx.db.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const rows = await filtered(ctx.db, filter)
    .innerJoin('su_plans as p', 'p.id', 's.plan_id')
    .innerJoin('su_clients as c', 'c.id', 's.client_id')
    .select([
      's.id',
      's.account_id',
      's.status',
      's.amount_minor',
      's.created_at',
      's.next_cycle_at',
      'p.id as plan_id',
      'p.name as plan_name',
      'p.type as plan_type',
      'p.amount_minor as plan_amount_minor',
      'c.id as client_id',
      'c.name as client_name',
      'c.email as client_email',
    ])
    .orderBy('s.seq', 'desc')
    .offset(filter.offset)
    .limit(filter.limit)
    .execute();
  const paid = await lastPayments(
    ctx.db,
    rows.map((r) => r.id),
  );
  return {
    total: Number(count.n),
    subscriptions: rows.map((r) => {
      const amount =
        r.plan_type === 'variable'
          ? r.amount_minor
          : r.plan_type === 'fixed'
            ? r.plan_amount_minor
            : null;
      const last = paid.get(r.id);
      return {
        id: r.id,
        account_id: r.account_id,
        status: r.status,
        plan: { id: r.plan_id, name: r.plan_name, type: r.plan_type },
        client: { id: r.client_id, name: r.client_name, email: r.client_email },
        amount: amount === null ? null : minorAsJsonNumber(BigInt(amount)),
        created_at: formatTimestamp(r.created_at, tz),
        next_charge_at: r.next_cycle_at === null ? null : formatTimestamp(r.next_cycle_at, tz),
        last_payment:
          last === undefined
            ? null
            : {
                at: formatTimestamp(last.at, tz),
                amount: minorAsJsonNumber(last.amount),
                status: last.status,
              },
      };
    }),
  };
}

/** The account owning a subscription, for the operator who knows only its id. */
export async function subscriptionAccount(db: DbOrTx, id: string): Promise<string | null> {
  const row = await db
    .selectFrom('su_subscriptions')
    .select('account_id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.account_id ?? null;
}

/**
 * One subscription as GET /api/sususcription/{id} answers it, plus its plan's pricing and its billing cycles
 * (`paid[]` of the v3 list, with the due and paid instants in full). Null when the account has no such subscription.
 */
export async function subscriptionDetail(ctx: AppContext, accountId: string, id: string) {
  const row = await ctx.db
    .selectFrom('su_subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (row === undefined) return null;
  const tz = ctx.config.timeZone;
  const [parts] = await readParts(ctx.db, accountId, [row], true);
  const { plan, cycles } = parts!;
  const view = subscriptionView(ctx, parts!);
  return {
    ...view,
    account_id: row.account_id,
    amount: row.amount_minor === null ? null : minorAsJsonNumber(BigInt(row.amount_minor)),
    next_charge_at: row.next_cycle_at === null ? null : formatTimestamp(row.next_cycle_at, tz),
    pricing: {
      type: plan.type,
      amount: plan.amount_minor === null ? null : minorAsJsonNumber(BigInt(plan.amount_minor)),
      currency: plan.currency,
      interval: plan.interval_unit,
      interval_count: plan.interval_count,
    },
    cycles: cycles.map((c) => ({
      number: c.cycle_number,
      due_at: formatTimestamp(c.due_at, tz),
      amount: minorAsJsonNumber(BigInt(c.amount_minor)),
      status: c.status,
      try_number: c.try_number,
      next_try_at: c.next_try_at === null ? null : formatTimestamp(c.next_try_at, tz),
      paid_at: c.paid_at === null ? null : formatTimestamp(c.paid_at, tz),
    })),
  };
}

export type SubscriptionDetail = NonNullable<Awaited<ReturnType<typeof subscriptionDetail>>>;

/** Plans as GET /api/suplan/{id} shows them, with their account, oldest first; one account's or every account's. */
export async function listPlansForOperator(
  ctx: AppContext,
  accountId: string | null,
  limit: number,
) {
  let q = ctx.db.selectFrom('su_plans').selectAll();
  if (accountId !== null) q = q.where('account_id', '=', accountId);
  const rows = await q.orderBy('seq').limit(limit).execute();
  const out = [];
  for (const row of rows)
    out.push({ ...planView(row, await planCounts(ctx.db, row.id)), account_id: row.account_id });
  return out;
}

export async function showPlanForOperator(ctx: AppContext, id: string) {
  const row = await ctx.db
    .selectFrom('su_plans')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined
    ? null
    : { ...planView(row, await planCounts(ctx.db, row.id)), account_id: row.account_id };
}

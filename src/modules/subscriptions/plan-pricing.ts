// Setting a plan's pricing after it was created the reference's way (POST /api/suplan without Cobro's fields):
// `cobro plans set-pricing` (decision 105). The same bounds as the API's body and the same rules across fields
// (plan-service.ts pricingProblems); a plan that has live subscriptions keeps its pricing.
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { subscriptionLimits as L, transactionLimits } from '../../limits/index.ts';
import { planView, pricingProblems } from './plan-service.ts';
import { planCounts } from './subscription-repository.ts';
import { liveStatuses } from './states.ts';
import { planIntervals, planTypes, type PlanInterval, type PlanType } from './types.ts';

export interface PricingChange {
  readonly type?: PlanType;
  readonly amount?: bigint;
  readonly currency?: string;
  readonly interval?: PlanInterval;
  readonly interval_count?: number;
  readonly trial_days?: number;
  readonly retries_max?: number;
}

/** The pricing fields as an operator types them (`--interval-count 1`), by API field name. */
export type PricingText = Readonly<Partial<Record<keyof PricingChange, string>>>;

function wholeNumber(text: string, min: number, max: number): number | null {
  if (!/^\d{1,15}$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return n >= min && n <= max ? n : null;
}

/** Reads typed values, bounded as POST /api/suplan bounds them; each problem names its field. */
export function parsePricing(
  text: PricingText,
): { ok: true; change: PricingChange } | { ok: false; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const change: { -readonly [K in keyof PricingChange]: PricingChange[K] } = {};
  if (text.type !== undefined) {
    if ((planTypes as readonly string[]).includes(text.type)) change.type = text.type as PlanType;
    else problems.type = `must be one of ${planTypes.join(', ')}`;
  }
  if (text.interval !== undefined) {
    if ((planIntervals as readonly string[]).includes(text.interval))
      change.interval = text.interval as PlanInterval;
    else problems.interval = `must be one of ${planIntervals.join(', ')}`;
  }
  if (text.amount !== undefined) {
    const n = wholeNumber(text.amount, 1, transactionLimits.amountIntegerMax);
    if (n === null)
      problems.amount = `must be a whole number of CLP from 1 to ${transactionLimits.amountIntegerMax}`;
    else change.amount = BigInt(n);
  }
  if (text.currency !== undefined) change.currency = text.currency.trim().toUpperCase();
  const bounded = [
    ['interval_count', 1, L.planIntervalCountMax],
    ['trial_days', 0, L.planTrialDaysMax],
    ['retries_max', 0, L.planRetriesMax],
  ] as const;
  for (const [field, min, max] of bounded) {
    const value = text[field];
    if (value === undefined) continue;
    const n = wholeNumber(value, min, max);
    if (n === null) problems[field] = `must be a whole number from ${min} to ${max}`;
    else change[field] = n;
  }
  return Object.keys(problems).length > 0 ? { ok: false, problems } : { ok: true, change };
}

export type PricingResult =
  | { readonly ok: true; readonly accountId: string; readonly plan: ReturnType<typeof planView> }
  | {
      readonly ok: false;
      readonly reason: 'not_found' | 'invalid' | 'in_use';
      readonly problems: Record<string, string>;
    };

/**
 * Applies the change to the plan's current pricing. Fields not given keep their value, except the amount, which
 * a change of type to `variable` or `consumption` clears (those plans have none). Refused, changing nothing, when
 * the result breaks decision 100's rules or when subscriptions not ended use the plan (they were sold its price).
 */
export async function setPlanPricing(
  ctx: AppContext,
  planId: string,
  change: PricingChange,
): Promise<PricingResult> {
  return inTransaction(ctx.db, async (tx) => {
    // The lock also waits for a subscription being created on the plan (its foreign key shares the row).
    const plan = await tx
      .selectFrom('su_plans')
      .selectAll()
      .where('id', '=', planId)
      .forUpdate()
      .executeTakeFirst();
    if (plan === undefined)
      return { ok: false, reason: 'not_found', problems: { plan: 'not found' } };
    const type = change.type ?? plan.type;
    const amount =
      change.amount ??
      (change.type !== undefined && change.type !== 'fixed' ? null : plan.amount_minor);
    const currency = change.currency ?? plan.currency;
    const problems = pricingProblems(type, amount, currency);
    if (Object.keys(problems).length > 0) return { ok: false, reason: 'invalid', problems };
    const live = await tx
      .selectFrom('su_subscriptions')
      .select(tx.fn.countAll<string>().as('n'))
      .where('plan_id', '=', planId)
      .where('status', 'in', liveStatuses)
      .executeTakeFirstOrThrow();
    if (Number(live.n) > 0)
      return {
        ok: false,
        reason: 'in_use',
        problems: { plan: `has ${live.n} subscriptions not ended` },
      };
    await tx
      .updateTable('su_plans')
      .set({
        type,
        amount_minor: amount,
        currency,
        interval_unit: change.interval ?? plan.interval_unit,
        interval_count: change.interval_count ?? plan.interval_count,
        trial_days: change.trial_days ?? plan.trial_days,
        retries_max: change.retries_max ?? plan.retries_max,
        updated_at: await ctx.accountClock.now(plan.account_id, tx),
      })
      .where('id', '=', planId)
      .execute();
    const updated = await tx
      .selectFrom('su_plans')
      .selectAll()
      .where('id', '=', planId)
      .executeTakeFirstOrThrow();
    return {
      ok: true,
      accountId: plan.account_id,
      plan: planView(updated, await planCounts(tx, planId)),
    };
  });
}

// Subscription plans (reference §8.2, §7.13b-c) with Cobro's pricing extension (decision 100).
import type { AppContext } from '../../platform/context.ts';
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import { notFound, validationError } from '../../platform/errors/errors.ts';
import { newId } from '../../platform/ids/ids.ts';
import { checkCallbackUrl } from '../../platform/notifications/ssrf-guard.ts';
import { isHttpUrl, present } from '../transactions/create-checks.ts';
import { findPlan, listPlans, type PlanRow } from './repository.ts';
import type { PlanCreate } from './schemas.ts';
import { planCounts } from './subscription-repository.ts';
import type { PlanType } from './types.ts';

/** Subscriptions are charged in CLP only (reference §7.6: "Currency is CLP"). */
const planCurrencies = ['CLP'] as const;
const retriesDefault = 3;

/**
 * Decision 100: without `type`, a plan with an amount is `fixed` and one without is `consumption` (charged on
 * demand only), so the reference's own plan body makes a working consumption plan.
 */
function planTypeOf(body: Pick<PlanCreate, 'type' | 'amount'>): PlanType {
  return body.type ?? (body.amount === undefined ? 'consumption' : 'fixed');
}

/** The rules across pricing fields (decision 100), by field: what POST /api/suplan and `cobro plans set-pricing` refuse. */
export function pricingProblems(
  type: PlanType,
  amount: number | bigint | null,
  currency: string,
): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!(planCurrencies as readonly string[]).includes(currency)) problems.currency = 'invalid';
  if (type === 'fixed' && amount === null) problems.amount = 'is empty';
  if (type !== 'fixed' && amount !== null) problems.amount = `not allowed on a ${type} plan`;
  return problems;
}

/**
 * The plan's URLs, checked as a transaction's are (decision 680): the pages the payer is sent back to as its
 * `urlreturn` (http or https), the notification URLs as its `urlnotify` (the callback check). Empty is none.
 */
function planUrlProblems(
  ctx: AppContext,
  accountId: string,
  body: PlanCreate,
): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const field of ['url_success_payment', 'url_failed_payment'] as const) {
    const url = present(body[field]);
    if (url !== null && !isHttpUrl(url)) problems[field] = 'invalid';
  }
  for (const field of ['url_notify_suscription', 'url_notify_payment'] as const) {
    const url = present(body[field]);
    if (url !== null && !checkCallbackUrl(url, ctx.config, accountId).ok)
      problems[field] = 'invalid';
  }
  return problems;
}

export async function createPlan(ctx: AppContext, accountId: string, body: PlanCreate) {
  const type = planTypeOf(body);
  const currency = (body.currency ?? 'CLP').toUpperCase();
  const problems = {
    ...planUrlProblems(ctx, accountId, body),
    ...pricingProblems(type, body.amount ?? null, currency),
  };
  if (Object.keys(problems).length > 0) throw validationError(problems);
  const id = newId('pl', 20);
  await ctx.db
    .insertInto('su_plans')
    .values({
      id,
      account_id: accountId,
      status: 'active',
      name: body.name,
      code: body.code ?? '',
      description: body.description ?? '',
      url_notify_suscription: present(body.url_notify_suscription) ?? '',
      url_notify_payment: present(body.url_notify_payment) ?? '',
      url_success_payment: present(body.url_success_payment) ?? '',
      url_failed_payment: present(body.url_failed_payment) ?? '',
      type,
      amount_minor: body.amount ?? null,
      currency,
      interval_unit: body.interval ?? 'month',
      interval_count: body.interval_count ?? 1,
      trial_days: body.trial_days ?? 0,
      retries_max: body.retries_max ?? retriesDefault,
      created_at: await ctx.accountClock.now(accountId, ctx.db),
      updated_at: null,
    })
    .execute();
  return { status: 'success' as const, id };
}

export interface PlanCounts {
  readonly total: number;
  readonly active: number;
}

export function planView(row: PlanRow, counts: PlanCounts) {
  return {
    id: row.id,
    status: row.status,
    name: row.name,
    code: row.code,
    description: row.description,
    url_notify_payment: row.url_notify_payment,
    url_notify_suscription: row.url_notify_suscription,
    total_suscription: counts.total,
    total_suscription_active: counts.active,
    type: row.type,
    amount: row.amount_minor === null ? null : minorAsJsonNumber(row.amount_minor),
    currency: row.currency,
    interval: row.interval_unit,
    interval_count: row.interval_count,
    trial_days: row.trial_days,
    retries_max: row.retries_max,
  };
}

export async function getPlan(ctx: AppContext, accountId: string, id: string) {
  const row = await findPlan(ctx.db, accountId, id);
  if (row === undefined) throw notFound('plan');
  return { status: 'success' as const, plans: planView(row, await planCounts(ctx.db, row.id)) };
}

export async function getPlans(ctx: AppContext, accountId: string) {
  const rows = await listPlans(ctx.db, accountId);
  const plans = [];
  for (const row of rows) plans.push(planView(row, await planCounts(ctx.db, row.id)));
  return { status: 'success' as const, plans };
}

// What the card-enrolment page shows of a link: the merchant, the plan and its price, and whether the link can
// still enrol a card. Null when the link is unknown or its `validacion` does not match.
import type { AppContext } from '../../platform/context.ts';
import { subscriptionPlan } from './subscription-repository.ts';
import { findEnrolment } from './enrolment-link.ts';
import { isFinal } from './states.ts';

export interface EnrolmentContext {
  readonly token: string;
  readonly validacion: string;
  readonly accountId: string;
  readonly subscriptionId: string;
  readonly merchant: string;
  readonly planName: string;
  /** CLP per cycle, or null for consumption plans (charged on demand). */
  readonly amountMinor: bigint | null;
  readonly interval: string;
  readonly intervalCount: number;
  readonly enrolled: boolean;
  /** False once the subscription ended (deleted, cancelled, finished). */
  readonly open: boolean;
  /** Its card's charges were declined past their retries: it waits for a new card (decision 1060). */
  readonly suspended: boolean;
  /**
   * The card this link enrolled was removed since (`POST /api/suscriptionsdeletecards`, decision 1075): the link
   * stays used, as a link enrols one card; a new card takes a new link from the merchant.
   */
  readonly cardRemoved: boolean;
  /** The subscription holds a card not removed (this link's or a newer link's). */
  readonly hasLiveCard: boolean;
  readonly successUrl: string | null;
}

export async function enrolmentContext(
  ctx: AppContext,
  token: string,
  validacion: string,
): Promise<EnrolmentContext | null> {
  const enrolment = await findEnrolment(ctx.db, token, validacion);
  if (enrolment === undefined) return null;
  const sub = await ctx.db
    .selectFrom('su_subscriptions')
    .selectAll()
    .where('id', '=', enrolment.subscription_id)
    .executeTakeFirstOrThrow();
  const plan = await subscriptionPlan(ctx.db, sub);
  const account = await ctx.db
    .selectFrom('accounts')
    .select('name')
    .where('id', '=', sub.account_id)
    .executeTakeFirstOrThrow();
  const removed =
    enrolment.card_id === null
      ? undefined
      : await ctx.db
          .selectFrom('su_cards')
          .select('deleted_at')
          .where('id', '=', enrolment.card_id)
          .executeTakeFirst();
  const liveCard = await ctx.db
    .selectFrom('su_cards')
    .select('id')
    .where('subscription_id', '=', sub.id)
    .where('deleted_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  const amount = plan.type === 'consumption' ? null : (sub.amount_minor ?? plan.amount_minor);
  return {
    token: enrolment.token,
    validacion: enrolment.validacion,
    accountId: sub.account_id,
    subscriptionId: sub.id,
    merchant: account.name,
    planName: plan.name,
    amountMinor: amount === null ? null : BigInt(amount),
    interval: plan.interval_unit,
    intervalCount: plan.interval_count,
    enrolled: enrolment.used_at !== null,
    open: !isFinal(sub.status),
    suspended: sub.status === 'suspended',
    cardRemoved: removed !== undefined && removed.deleted_at !== null,
    hasLiveCard: liveCard !== undefined,
    successUrl: plan.url_success_payment === '' ? null : plan.url_success_payment,
  };
}

/** The view read again, after a card was enrolled through it (a suspended subscription is active again). */
export async function enrolmentNow(
  ctx: AppContext,
  view: EnrolmentContext,
): Promise<EnrolmentContext> {
  return (await enrolmentContext(ctx, view.token, view.validacion)) ?? view;
}

// What a client read shows of its cards and its latest subscription (reference §7.2): `active_cards` and the
// single-object `subcriptions` (null before the first subscription).
import type { AppContext } from '../../platform/context.ts';
import { formatDate, formatTimestamp } from '../../platform/time/time-format.ts';
import type { ClientRow, PlanRow } from './repository.ts';
import {
  clientLiveCards,
  latestClientSubscription,
  liveCards,
  subscriptionCharges,
  subscriptionPlan,
  type ChargeRow,
} from './subscription-repository.ts';
import { activeCardView, chargeView, maskedCard, planBrief } from './subscription-views.ts';

export async function clientCardsView(ctx: AppContext, client: ClientRow) {
  return (await clientLiveCards(ctx.db, client.id)).map((card) => activeCardView(ctx, card));
}

export async function clientSubscriptionView(ctx: AppContext, client: ClientRow) {
  const sub = await latestClientSubscription(ctx.db, client.id);
  if (sub === undefined) return null;
  const plan = await subscriptionPlan(ctx.db, sub);
  const amount = sub.amount_minor ?? plan.amount_minor;
  const charges = await subscriptionCharges(ctx.db, sub.id);
  return {
    id: sub.id,
    created_at: formatTimestamp(sub.created_at, ctx.config.timeZone),
    status: sub.status,
    amount: amount === null ? '0' : amount.toString(),
    plan: [planBrief(plan)],
    cards: (await liveCards(ctx.db, sub.id)).map(maskedCard),
    transactions: charges.map((c) => ({
      ...chargeView(ctx, c),
      status: clientChargeStatus(c, plan),
      date_payment: formatDate(c.ended_at ?? c.created_at, ctx.config.timeZone),
    })),
  };
}

/**
 * reference §7.0: a client read names its charges with the 9-value set: a declined cycle try is `retry` while the
 * plan's retries last and `maximum attempt limit` after (decision 101), a declined on-demand charge
 * `payment consumes failed`.
 */
function clientChargeStatus(
  charge: Pick<ChargeRow, 'kind' | 'status' | 'try_number'>,
  plan: Pick<PlanRow, 'retries_max'>,
): string {
  if (charge.status !== 'rejected') return charge.status;
  if (charge.kind === 'consumption') return 'payment consumes failed';
  return (charge.try_number ?? 1) > plan.retries_max ? 'maximum attempt limit' : 'retry';
}

// How a subscription reads in each of the reference's shapes (§7.2 client, §7.7 v1 list, §7.8 v3 list, §7.9 one),
// typos and shifting types included: `cards` an object, `active_cards` an array or an object, `estatus` in v3.
import type { AppContext } from '../../platform/context.ts';
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import type { DbOrTx } from '../../platform/db/types.ts';
import { formatDate, formatTimestamp } from '../../platform/time-format.ts';
import type { ClientRow, PlanRow } from './repository.ts';
import {
  liveCards, statusLogs, subscriptionCharges, subscriptionCycles, type CardRow, type ChargeRow, type SubscriptionRow,
} from './subscription-repository.ts';

export function maskedCard(card: CardRow) {
  return { last_4_digits: `XXXXXXXXXXXX${card.last4}`, card_type: card.brand };
}

export function activeCardView(ctx: AppContext, card: CardRow) {
  return { last_4_digits: `XXXXXXXXXXXX${card.last4}`, identifier: card.id, card_type: card.brand, register: formatTimestamp(card.created_at, ctx.config.timeZone) };
}

export function chargeView(ctx: AppContext, charge: ChargeRow) {
  return {
    created_at: formatTimestamp(charge.created_at, ctx.config.timeZone),
    amount: minorAsJsonNumber(charge.amount_minor),
    transaction: Number(charge.number),
    authorization_code: charge.authorization_code,
    order: charge.order_ref,
    description: charge.description,
    status: charge.status,
  };
}

/** The client inside a subscription (reference §7.7): `parámetros` always `[]`, `additional_parameters` as text. */
export function clientBrief(client: ClientRow) {
  return {
    id: client.id, name: client.name, email: client.email, rut: client.rut ?? '', phone: client.phone,
    'parámetros': [] as never[], additional_parameters: client.additional_parameters ?? '',
  };
}

export function planBrief(plan: PlanRow) {
  return { id: plan.id, name: plan.name, currency: plan.currency };
}

export async function logsView(ctx: AppContext, db: DbOrTx, subscriptionId: string) {
  const rows = await statusLogs(db, subscriptionId);
  return {
    status: rows.map((r) => ({
      change_date: formatTimestamp(r.changed_at, ctx.config.timeZone), initial_status: r.initial_status, final_status: r.final_status,
    })),
  };
}

export interface SubscriptionParts {
  readonly row: SubscriptionRow;
  readonly client: ClientRow;
  readonly plan: PlanRow;
}

function times(ctx: AppContext, row: SubscriptionRow) {
  const tz = ctx.config.timeZone;
  return { start: formatTimestamp(row.created_at, tz), end: row.ended_at === null ? null : formatTimestamp(row.ended_at, tz) };
}

/** reference §7.9: GET /api/sususcription/{id}. */
export async function subscriptionView(ctx: AppContext, parts: SubscriptionParts) {
  const { row } = parts;
  const cards = await liveCards(ctx.db, row.id);
  const charges = await subscriptionCharges(ctx.db, row.id);
  return {
    id: row.id, status: row.status, ...times(ctx, row),
    client: clientBrief(parts.client), plan: planBrief(parts.plan),
    cards: cards[0] === undefined ? null : maskedCard(cards[0]),
    active_cards: cards.map((c) => activeCardView(ctx, c)),
    transactions: charges.map((c) => chargeView(ctx, c)),
    logs: await logsView(ctx, ctx.db, row.id),
  };
}

/** reference §7.7: one item of the v1 list. */
export async function subscriptionV1View(ctx: AppContext, parts: SubscriptionParts) {
  const { row } = parts;
  const cards = await liveCards(ctx.db, row.id);
  const charges = await subscriptionCharges(ctx.db, row.id);
  const cycles = await subscriptionCycles(ctx.db, row.id);
  const lastCycle = cycles.at(-1);
  const lastCharge = charges.at(-1);
  return {
    id: row.id, status: row.status,
    last_status_current_payment: lastCycle?.status ?? lastCharge?.status ?? 'pending',
    ...times(ctx, row),
    client: clientBrief(parts.client), plan: planBrief(parts.plan),
    cards: cards[0] === undefined ? null : maskedCard(cards[0]),
    transactions: charges.map((c) => chargeView(ctx, c)),
    logs: await logsView(ctx, ctx.db, row.id),
  };
}

/** reference §7.8: one item of the v3 list, with the billing cycles in `paid[]`. */
export async function subscriptionV3View(ctx: AppContext, parts: SubscriptionParts) {
  const { row } = parts;
  const tz = ctx.config.timeZone;
  const cards = await liveCards(ctx.db, row.id);
  const charges = await subscriptionCharges(ctx.db, row.id);
  const cycles = await subscriptionCycles(ctx.db, row.id);
  return {
    id: row.id, estatus: row.status, ...times(ctx, row),
    client: clientBrief(parts.client), plan: planBrief(parts.plan),
    active_cards: cards[0] === undefined ? null : maskedCard(cards[0]),
    logs: await logsView(ctx, ctx.db, row.id),
    paid: cycles.map((cycle) => ({
      payment_cycle_day: formatDate(cycle.due_at, tz),
      payment_day: cycle.paid_at === null ? null : formatDate(cycle.paid_at, tz),
      status: cycle.status,
      amount_paid: cycle.status === 'success' ? minorAsJsonNumber(cycle.amount_minor) : 0,
      try_number: cycle.try_number,
      paid_number: cycle.cycle_number,
      transactions: charges.filter((c) => c.kind === 'cycle' && c.cycle_number === cycle.cycle_number).map((c) => chargeView(ctx, c)),
    })),
  };
}

// How a subscription reads in each of the reference's shapes (§7.2 client, §7.7 v1 list, §7.8 v3 list, §7.9 one),
// typos and shifting types included: `cards` an object, `active_cards` an array or an object, `estatus` in v3.
// Each view is built from parts already read (subscription-parts.ts), so a list page reads them for many
// subscriptions at once and one subscription the same way.
import type { AppContext } from '../../platform/context.ts';
import { integerAsExact, minorAsJsonNumber } from '../../platform/money/json-number.ts';
import { formatDate, formatTimestamp } from '../../platform/time/time-format.ts';
import type { ClientRow, PlanRow } from './repository.ts';
import type {
  CardRow,
  ChargeRow,
  StatusLogRow,
  SubscriptionRow,
} from './subscription-repository.ts';
import type { SubscriptionParts, SubscriptionPartsWithCycles } from './subscription-parts.ts';

/** The reference's masked card number: twelve `X` (a card's other digits, never kept) and the last four. */
const maskedDigitsPrefix = 'X'.repeat(12);

function maskedDigits(card: CardRow): string {
  return `${maskedDigitsPrefix}${card.last4}`;
}

export function maskedCard(card: CardRow) {
  return { last_4_digits: maskedDigits(card), card_type: card.brand };
}

export function activeCardView(ctx: AppContext, card: CardRow) {
  return {
    last_4_digits: maskedDigits(card),
    identifier: card.id,
    card_type: card.brand,
    register: formatTimestamp(card.created_at, ctx.config.timeZone),
  };
}

export function chargeView(ctx: AppContext, charge: ChargeRow) {
  return {
    created_at: formatTimestamp(charge.created_at, ctx.config.timeZone),
    amount: minorAsJsonNumber(charge.amount_minor),
    // A BIGINT sequence: exact past 2^53 - 1 too, never rounded to another sale's number (decision 940).
    transaction: integerAsExact(charge.number),
    authorization_code: charge.authorization_code,
    order: charge.order_ref,
    description: charge.description,
    status: charge.status,
  };
}

/**
 * The client inside a subscription (reference §7.7): `parámetros` always `[]` (and `parametros`, the English
 * OpenAPI's spelling, decision 440), `additional_parameters` as text.
 */
function clientBrief(client: ClientRow) {
  return {
    id: client.id,
    name: client.name,
    email: client.email,
    rut: client.rut ?? '',
    phone: client.phone,
    parámetros: [] as never[],
    parametros: [] as never[],
    additional_parameters: client.additional_parameters ?? '',
  };
}

export function planBrief(plan: PlanRow) {
  return { id: plan.id, name: plan.name, currency: plan.currency };
}

function logsView(ctx: AppContext, rows: readonly StatusLogRow[]) {
  return {
    status: rows.map((r) => ({
      change_date: formatTimestamp(r.changed_at, ctx.config.timeZone),
      initial_status: r.initial_status,
      final_status: r.final_status,
    })),
  };
}

function times(ctx: AppContext, row: SubscriptionRow) {
  const tz = ctx.config.timeZone;
  return {
    start: formatTimestamp(row.created_at, tz),
    end: row.ended_at === null ? null : formatTimestamp(row.ended_at, tz),
  };
}

/** reference §7.9: GET /api/sususcription/{id}. */
export function subscriptionView(ctx: AppContext, parts: SubscriptionParts) {
  const { row, cards, charges } = parts;
  return {
    id: row.id,
    status: row.status,
    ...times(ctx, row),
    client: clientBrief(parts.client),
    plan: planBrief(parts.plan),
    cards: cards[0] === undefined ? null : maskedCard(cards[0]),
    active_cards: cards.map((c) => activeCardView(ctx, c)),
    transactions: charges.map((c) => chargeView(ctx, c)),
    logs: logsView(ctx, parts.logs),
  };
}

/** reference §7.7: one item of the v1 list. */
export function subscriptionV1View(ctx: AppContext, parts: SubscriptionPartsWithCycles) {
  const { row, cards, charges, cycles } = parts;
  const lastCycle = cycles.at(-1);
  const lastCharge = charges.at(-1);
  return {
    id: row.id,
    status: row.status,
    last_status_current_payment: lastCycle?.status ?? lastCharge?.status ?? 'pending',
    ...times(ctx, row),
    client: clientBrief(parts.client),
    plan: planBrief(parts.plan),
    cards: cards[0] === undefined ? null : maskedCard(cards[0]),
    transactions: charges.map((c) => chargeView(ctx, c)),
    logs: logsView(ctx, parts.logs),
  };
}

/** reference §7.8: one item of the v3 list, with the billing cycles in `paid[]`. */
export function subscriptionV3View(ctx: AppContext, parts: SubscriptionPartsWithCycles) {
  const { row, cards, charges, cycles } = parts;
  const tz = ctx.config.timeZone;
  return {
    id: row.id,
    estatus: row.status,
    ...times(ctx, row),
    client: clientBrief(parts.client),
    plan: planBrief(parts.plan),
    active_cards: cards[0] === undefined ? null : maskedCard(cards[0]),
    logs: logsView(ctx, parts.logs),
    paid: cycles.map((cycle) => ({
      payment_cycle_day: formatDate(cycle.due_at, tz),
      payment_day: cycle.paid_at === null ? null : formatDate(cycle.paid_at, tz),
      status: cycle.status,
      amount_paid: cycle.status === 'success' ? minorAsJsonNumber(cycle.amount_minor) : 0,
      try_number: cycle.try_number,
      paid_number: cycle.cycle_number,
      transactions: charges
        .filter((c) => c.kind === 'cycle' && c.cycle_number === cycle.cycle_number)
        .map((c) => chargeView(ctx, c)),
    })),
  };
}

// TypeBox shapes of subscriptions (reference §7.6-7.10, §8.3).
import { Type, type Static } from 'typebox';
import { limits, subscriptionLimits as L, transactionLimits } from '../../limits/index.ts';
import type { subscriptionStatuses } from './states.ts';
import { CardBrief, ActiveCard, ChargeView } from './schemas.ts';
import { RuleFailureBody } from '../../platform/http/schemas.ts';

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const SubscriptionCreateBody = Type.Object(
  {
    plan: Type.String({
      minLength: 1,
      maxLength: L.subscriptionPlanLengthMax,
      description: 'Plan id (`pl...`)',
    }),
    client: Type.String({
      minLength: 1,
      maxLength: L.subscriptionClientLengthMax,
      description: 'Client id (`cl...`)',
    }),
    amount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: transactionLimits.amountIntegerMax,
        description: 'CLP per cycle; variable plans only',
      }),
    ),
    coupon: Type.Optional(
      Type.String({ maxLength: L.couponLengthMax, description: 'Recorded with the subscription' }),
    ),
  },
  { additionalProperties: false },
);
export type SubscriptionCreate = Static<typeof SubscriptionCreateBody>;

export const SubscriptionCreateResponse = Type.Union([
  Type.Object({
    status: Type.Literal('register'),
    id: Type.String(),
    url: Type.String({ description: 'The hosted page where the payer enrols a card' }),
  }),
  RuleFailureBody,
]);

const flag = (status: (typeof subscriptionStatuses)[number]) =>
  Type.Optional(Type.Boolean({ description: `${status}=true lists ${status} subscriptions` }));

export const SubscriptionListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.walletPageMax })),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: L.subscriptionsPerPageMax, description: 'Default 100' }),
  ),
  date_init: Type.Optional(
    Type.String({
      maxLength: limits.dateTimeTextLengthMax,
      description: 'YYYY-MM-DD; default today',
    }),
  ),
  date_end: Type.Optional(
    Type.String({
      maxLength: limits.dateTimeTextLengthMax,
      description: 'YYYY-MM-DD; default today',
    }),
  ),
  register: flag('register'),
  active: flag('active'),
  finish: flag('finish'),
  delete: flag('delete'),
  cancel: flag('cancel'),
  suspended: flag('suspended'),
});
export type SubscriptionListQueryInput = Static<typeof SubscriptionListQuery>;

const ClientBrief = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.String(),
  rut: Type.String(),
  phone: Type.String(),
  parámetros: Type.Array(Type.Never(), { description: 'Always empty, as the reference shows it' }),
  parametros: Type.Array(Type.Never(), {
    description: "The same, as the reference's English OpenAPI spells it (decision 440)",
  }),
  additional_parameters: Type.String({ description: 'The client\'s map as JSON text, or ""' }),
});
const PlanBrief = Type.Object({ id: Type.String(), name: Type.String(), currency: Type.String() });
const Logs = Type.Object({
  status: Type.Array(
    Type.Object({
      change_date: nullableString,
      initial_status: nullableString,
      final_status: nullableString,
    }),
  ),
});

const common = {
  start: Type.String(),
  end: nullableString,
  client: ClientBrief,
  plan: PlanBrief,
};

export const SubscriptionResponse = Type.Object({
  id: Type.String(),
  status: Type.String(),
  ...common,
  cards: Type.Union([CardBrief, Type.Null()], { description: 'The card charged (an object)' }),
  active_cards: Type.Array(ActiveCard),
  transactions: Type.Array(ChargeView),
  logs: Logs,
});

const V1Item = Type.Object({
  id: Type.String(),
  status: Type.String(),
  last_status_current_payment: Type.String(),
  ...common,
  cards: Type.Union([CardBrief, Type.Null()]),
  transactions: Type.Array(ChargeView),
  logs: Logs,
});

const V3Item = Type.Object({
  id: Type.String(),
  estatus: Type.String(),
  ...common,
  active_cards: Type.Union([CardBrief, Type.Null()], {
    description: 'An object here (reference §7.8)',
  }),
  logs: Logs,
  paid: Type.Array(
    Type.Object({
      payment_cycle_day: Type.String(),
      payment_day: nullableString,
      status: Type.String(),
      amount_paid: Type.Integer(),
      try_number: Type.Integer(),
      paid_number: Type.Integer(),
      transactions: Type.Array(ChargeView),
    }),
  ),
});

export const SubscriptionListV1Response = Type.Array(
  Type.Object({ subscriptions: Type.Array(V1Item) }),
);
export const SubscriptionListV3Response = Type.Array(
  Type.Object({ subscriptions: Type.Array(V3Item) }),
);
export const SubscriptionDeletedResponse = Type.Object({
  id: Type.String(),
  status: Type.Literal('success'),
});

export const SubscriptionIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: limits.pathParamLengthMax }),
});

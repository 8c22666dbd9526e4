// TypeBox shapes of the subscription clients and plans (reference §7.1-7.5, §7.13b-c, §8.2; decision 100).
import { Type, type Static } from 'typebox';
import { limits, subscriptionLimits as L, transactionLimits } from '../../limits/index.ts';
import { exactInteger, literalUnion, nullableObject } from '../../platform/http/schemas.ts';
import { planIntervals, planTypes } from './types.ts';

const text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const optionalText = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const nullableString = Type.Union([Type.String(), Type.Null()]);
const freeObject = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'Free map (`parameter_1`, ...), at most 4000 characters as JSON',
  },
);

export const KeyParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: limits.pathParamLengthMax,
    description: 'The id (`cl...`) or, for clients, the e-mail',
  }),
});

const clientFields = {
  email: Type.String({ format: 'email', minLength: 1, maxLength: L.clientEmailLengthMax }),
  name: text(L.clientNameLengthMax),
  phone: text(L.clientPhoneLengthMax),
  address: optionalText(L.clientAddressLengthMax),
  country: optionalText(L.clientCountryLengthMax),
  region: optionalText(L.clientRegionLengthMax),
  city: optionalText(L.clientCityLengthMax),
  postal_code: optionalText(L.clientPostalCodeLengthMax),
  additional_parameters: Type.Optional(freeObject),
};

export const ClientCreateBody = Type.Object(
  {
    ...clientFields,
    rut: Type.Optional(
      Type.String({
        maxLength: L.clientRutLengthMax,
        description: 'With or without dash and dots; a number is read as its digits',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ClientCreate = Static<typeof ClientCreateBody>;

export const ClientUpdateBody = Type.Object(
  {
    email: Type.Optional(clientFields.email),
    name: Type.Optional(clientFields.name),
    phone: Type.Optional(clientFields.phone),
    address: clientFields.address,
    country: clientFields.country,
    region: clientFields.region,
    city: clientFields.city,
    postal_code: clientFields.postal_code,
    additional_parameters: clientFields.additional_parameters,
  },
  { additionalProperties: false },
);
export type ClientUpdate = Static<typeof ClientUpdateBody>;

/** A registered card as the reference shows it: a masked number, never the card's digits beyond the last four. */
export const ActiveCard = Type.Object({
  last_4_digits: Type.String({
    description: "Twelve `X` (the reference's mask), then the card's last four digits",
  }),
  identifier: Type.String({ description: 'The card id (`sure...`)' }),
  card_type: Type.String({ description: '`Visa` or `MasterCard`' }),
  register: Type.String(),
});
export const CardBrief = Type.Object({ last_4_digits: Type.String(), card_type: Type.String() });

export const ChargeView = Type.Object({
  created_at: Type.String(),
  date_payment: Type.Optional(Type.String()),
  amount: Type.Integer(),
  transaction: exactInteger({ description: "The sale's number" }),
  authorization_code: nullableString,
  order: Type.String(),
  description: Type.String(),
  status: Type.String(),
});

/** reference §7.2: the client's latest subscription, a single object (null before any). */
const ClientSubscription = Type.Object({
  id: Type.String(),
  created_at: Type.String(),
  status: Type.String(),
  amount: Type.String(),
  plan: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), currency: Type.String() }),
  ),
  cards: Type.Array(CardBrief),
  transactions: Type.Array(ChargeView),
});

const clientCore = {
  status: Type.String({ description: 'active' }),
  id: Type.String(),
};
const clientContact = {
  name: Type.String(),
  phone: Type.String(),
  email: Type.String(),
  address: nullableString,
  country: nullableString,
  region: nullableString,
  city: nullableString,
  postal_code: nullableString,
};

export const ClientCreateResponse = Type.Object({
  ...clientCore,
  rut: nullableString,
  ...clientContact,
  created_at: Type.String({
    description: 'YYYY-MM-DD (the reference shows the date alone on creation)',
  }),
  update_at: Type.Null(),
  subcriptions: Type.Null({ description: 'Spelled so by the reference; null on creation' }),
  additional_parameters: freeObject,
});

export const ClientResponse = Type.Object({
  ...clientCore,
  rut: nullableString,
  ...clientContact,
  created_at: Type.String(),
  update_at: nullableString,
  active_cards: Type.Array(ActiveCard),
  additional_parameters: freeObject,
  subcriptions: nullableObject(ClientSubscription),
});

export const ClientUpdateResponse = Type.Object({
  ...clientCore,
  ...clientContact,
  created_at: Type.String(),
  update_at: Type.String({
    description: 'YYYY-M-D HH:MM:SS, month and day not zero-padded, as the reference shows it',
  }),
  additional_parameters: freeObject,
  subcriptions: nullableObject(ClientSubscription),
});

export const DeletedResponse = Type.Object({ status: Type.Literal('success'), id: Type.String() });

export const CustomersQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.walletPageMax })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: L.customersPerPageMax })),
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
});
export type CustomersQueryInput = Static<typeof CustomersQuery>;

export const CustomersResponse = Type.Array(
  Type.Object({ Customers: Type.Array(ClientResponse) }),
  {
    description: 'A top-level array with one object keyed `Customers` (reference §7.5)',
  },
);

/** A plan's URL: its length here, the rest as a transaction's URLs are checked (plan-service.ts, decision 680). */
const planUrl = () => optionalText(L.planUrlLengthMax);

export const PlanCreateBody = Type.Object(
  {
    name: text(L.planNameLengthMax),
    description: optionalText(L.planDescriptionLengthMax),
    url_notify_suscription: planUrl(),
    url_notify_payment: planUrl(),
    url_success_payment: planUrl(),
    url_failed_payment: planUrl(),
    code: optionalText(L.planCodeLengthMax),
    // Cobro's pricing extension (decision 100).
    type: Type.Optional(
      literalUnion(planTypes, {
        description:
          'fixed, variable or consumption; default consumption without amount, fixed with one',
      }),
    ),
    amount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: transactionLimits.amountIntegerMax,
        description: 'Integer CLP per cycle (fixed plans)',
      }),
    ),
    currency: Type.Optional(
      Type.String({ maxLength: limits.currencyCodeLengthMax, description: 'CLP (the only one)' }),
    ),
    interval: Type.Optional(
      literalUnion(planIntervals, { description: 'day, week, month (default) or year' }),
    ),
    interval_count: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: L.planIntervalCountMax,
        description: 'Intervals per cycle; default 1',
      }),
    ),
    trial_days: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: L.planTrialDaysMax,
        description: 'Days before the first cycle starts; default 0',
      }),
    ),
    retries_max: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: L.planRetriesMax,
        description: 'Retries of a declined cycle before suspension; default 3',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PlanCreate = Static<typeof PlanCreateBody>;

export const PlanCreateResponse = Type.Object({
  status: Type.Literal('success'),
  id: Type.String(),
});

const PlanView = Type.Object({
  id: Type.String(),
  status: Type.String(),
  name: Type.String(),
  code: Type.String(),
  description: Type.String(),
  url_notify_payment: Type.String(),
  url_notify_suscription: Type.String(),
  total_suscription: Type.Integer(),
  total_suscription_active: Type.Integer(),
  type: Type.String(),
  amount: Type.Union([Type.Integer(), Type.Null()]),
  currency: Type.String(),
  interval: Type.String(),
  interval_count: Type.Integer(),
  trial_days: Type.Integer(),
  retries_max: Type.Integer(),
});

export const PlanResponse = Type.Object({ status: Type.Literal('success'), plans: PlanView });
export const PlansResponse = Type.Object({
  status: Type.Literal('success'),
  plans: Type.Array(PlanView),
});

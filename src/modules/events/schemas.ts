// TypeBox shapes of /api/event (seed "Events"). Beneficiaries come in two forms and are read by hand.
import { Type, type Static } from 'typebox';
import { exactInteger, RuleFailureBody } from '../../platform/http/schemas.ts';
import { eventLimits } from '../../limits/index.ts';

export const EventParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: eventLimits.codeLengthMax }),
});

const dateText = (description: string) =>
  Type.String({ minLength: 1, maxLength: eventLimits.dateTextLengthMax, description });
const beneficiaries = Type.Array(Type.Unknown(), {
  maxItems: eventLimits.beneficiariesMax,
  description: 'Beneficiaries as [{email, percent}] or [[email, percent]]',
});

export const EventCreateBody = Type.Object(
  {
    event: Type.String({
      minLength: 1,
      maxLength: eventLimits.codeLengthMax,
      description: 'Your event identifier',
    }),
    name: Type.String({ minLength: 1, maxLength: eventLimits.nameLengthMax }),
    date_event: dateText('YYYY-MM-DD or YYYY-MM-DD HH:MM:SS'),
    date_closing_sales: dateText('YYYY-MM-DD HH:MM:SS, at most date_event'),
    date_payment: dateText('YYYY-MM-DD or YYYY-MM-DD HH:MM:SS, after date_event'),
    url_event: Type.Optional(Type.String({ format: 'uri', maxLength: eventLimits.urlLengthMax })),
    url_logo: Type.Optional(Type.String({ format: 'uri', maxLength: eventLimits.urlLengthMax })),
    service_sale: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: eventLimits.serviceSaleMinorMax,
        description: 'Amount the account owner keeps from each sale',
      }),
    ),
    affiliation: Type.Optional(beneficiaries),
    affiliaction: Type.Optional(beneficiaries),
  },
  { additionalProperties: false },
);
export type EventCreate = Static<typeof EventCreateBody>;

const Beneficiary = Type.Object({
  id: Type.String(),
  email: Type.String(),
  percent: Type.String(),
  status: Type.String(),
});
const Distribution = Type.Object({
  affiliate: Type.String({ description: 'Total percent of the beneficiaries' }),
  service_sale: Type.String({ description: 'Amount the account owner keeps from each sale' }),
});
const eventFields = {
  id: Type.String({ description: 'Your event identifier' }),
  event: Type.String({ description: 'The event name' }),
  date_event: Type.String(),
  date_payment: Type.String(),
  date_closing_sales: Type.String(),
  url_logo: Type.String(),
  url_event: Type.String(),
  distribution: Distribution,
};

export const EventCreateResponse = Type.Union([
  Type.Object({
    status: Type.Literal('success'),
    ...eventFields,
    affiliation: Type.Array(Beneficiary),
  }),
  RuleFailureBody,
]);

export const EventGetResponse = Type.Object({
  ...eventFields,
  affiliations: Type.Array(Beneficiary),
  paymentData: Type.Optional(
    Type.Object(
      {
        count: Type.Integer(),
        amount_general: exactInteger({ description: 'The paid sales summed' }),
        amount_affiliate: exactInteger({ description: "The beneficiaries' shares summed" }),
        fee: exactInteger({ description: 'The fees summed' }),
        balance: exactInteger({ description: "The merchant's part summed" }),
      },
      { description: 'Present once the event has paid sales' },
    ),
  ),
});

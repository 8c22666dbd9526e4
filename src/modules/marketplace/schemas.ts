// TypeBox shapes of the marketplace endpoints (seed "Marketplace clients", "Marketplace memberships").
import { Type, type Static } from 'typebox';
import { RuleFailureBody } from '../../platform/http/schemas.ts';
import { marketplaceLimits } from '../../limits/index.ts';
import { numberAsWritten } from '../../platform/http/number-as-written.ts';

export const IdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: marketplaceLimits.clientIdLengthMax }),
});

const nonEmpty = (maxLength: number) => Type.String({ minLength: 1, maxLength });

export const ClientCreateBody = Type.Object(
  {
    email: Type.String({
      format: 'email',
      minLength: 1,
      maxLength: marketplaceLimits.emailLengthMax,
    }),
    name: nonEmpty(marketplaceLimits.nameCreateLengthMax),
    phone: nonEmpty(marketplaceLimits.phoneCreateLengthMax),
    bank: Type.Object({
      sbif: nonEmpty(marketplaceLimits.bankSbifLengthMax),
      type: Type.String({
        pattern: '^[123]$',
        description: '1 checking, 2 vista/RUT account, 3 savings',
      }),
      num: nonEmpty(marketplaceLimits.bankNumLengthMax),
      rut: Type.String({
        minLength: 1,
        maxLength: marketplaceLimits.bankRutLengthMax,
        description: 'RUT with check digit, e.g. 111111111 or 11.111.111-1',
      }),
    }),
  },
  { additionalProperties: false },
);
export type ClientCreate = Static<typeof ClientCreateBody>;

export const ClientUpdateBody = Type.Object(
  {
    name: Type.Optional(nonEmpty(marketplaceLimits.nameUpdateLengthMax)),
    phone: Type.Optional(nonEmpty(marketplaceLimits.phoneUpdateLengthMax)),
    bank: Type.Optional(
      Type.Object({
        sbif: Type.Optional(nonEmpty(marketplaceLimits.bankSbifLengthMax)),
        type: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
        num: Type.Optional(nonEmpty(marketplaceLimits.bankNumLengthMax)),
        rut: Type.Optional(
          Type.String({ minLength: 1, maxLength: marketplaceLimits.bankRutLengthMax }),
        ),
      }),
    ),
  },
  { additionalProperties: false },
);
export type ClientUpdate = Static<typeof ClientUpdateBody>;

const clientFields = {
  id: Type.String(),
  status: Type.String({ description: 'register or suspended' }),
  name: Type.String(),
  phone: Type.String(),
  email: Type.String(),
};
const clientTail = {
  affiliations: Type.Integer({ description: 'Number of memberships naming the client' }),
  created_at: Type.String(),
  update_at: Type.String({ description: 'Timestamp of the last update, or the text "null"' }),
};

// The seed's Marketplace client table types bank.type as a string ("1", "2" or "3") in every response.
export const ClientResponse = Type.Object({
  ...clientFields,
  bank: Type.Object({
    sbif: Type.String(),
    rut: Type.String(),
    type: Type.String(),
    num: Type.String(),
  }),
  ...clientTail,
});

const AffiliationDetail = Type.Object({
  id: Type.String({ description: 'Membership id' }),
  status: Type.String({
    description: 'not found, pending, liquidate, pending for deposit or paid',
  }),
  token: Type.String(),
  name: Type.String(),
  percentage_affiliation: Type.Number({ description: "The merchant's percent in the membership" }),
  percentage_client: Type.Number({ description: "This client's percent in the membership" }),
});

export const ClientUpdateResponse = Type.Object({
  ...clientFields,
  bank: Type.Object({
    sbif: Type.String(),
    type: Type.String(),
    num: Type.String(),
    rut: Type.String(),
  }),
  ...clientTail,
  affiliations_details: Type.Array(AffiliationDetail, {
    description: 'One entry per membership naming the client (seed: array of object)',
  }),
});

export const SuspendedResponse = Type.Object({
  status: Type.Literal('suspended'),
  id: Type.String(),
});

export const MembershipCreateBody = Type.Object(
  {
    name: nonEmpty(marketplaceLimits.membershipNameLengthMax),
    percentage: Type.String({
      minLength: 1,
      maxLength: marketplaceLimits.percentageLengthMax,
      description: 'The merchant\'s percent, e.g. "20" or "20.50"',
      // A number here is read from its text as a pair's percentage is (`33.330`, `1e1`; decision 1180).
      [numberAsWritten]: true,
    }),
    affiliation: Type.Array(Type.Array(Type.Unknown()), {
      minItems: 1,
      maxItems: marketplaceLimits.membershipClientsMax,
      description: 'Pairs [client_id, percentage], e.g. [["ma9fd16221a9645b0036","80"]]',
    }),
  },
  { additionalProperties: false },
);
export type MembershipCreate = Static<typeof MembershipCreateBody>;

export const MembershipResponse = Type.Object({
  id: Type.String(),
  status: Type.String({ description: 'register or suspended' }),
  name: Type.String(),
  token: Type.String({
    description: 'What a merchant sends as `marketplace` in POST /api/transaction',
  }),
  percentage: Type.String({ description: "The merchant's percent, two decimals" }),
  affiliations: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), percentage: Type.String() }),
  ),
});

export const MembershipCreateResponse = Type.Union([MembershipResponse, RuleFailureBody]);

// TypeBox shapes of the marketplace endpoints (seed "Marketplace clients", "Marketplace memberships").
import { Type, type Static } from 'typebox';
import { RuleFailureBody } from '../../platform/http/schemas.ts';

export const maLimits = {
  clientIdLengthMax: 20,
  emailLengthMax: 50,
  nameCreateLengthMax: 150,
  nameUpdateLengthMax: 50,
  phoneCreateLengthMax: 12,
  phoneUpdateLengthMax: 50,
  bankSbifLengthMax: 5,
  bankNumLengthMax: 40,
  bankRutLengthMax: 12,
  membershipNameLengthMax: 80,
  /** "100.00": the seed's 2 characters cannot hold 100 or decimals (decision 041). */
  percentageLengthMax: 6,
  /** The seed's "max 25" on the pairs, read as 25 clients per membership. */
  membershipClientsMax: 25,
  /** Memberships listed in one client's affiliations_details. */
  detailsPerClientMax: 200,
} as const;

export const IdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: maLimits.clientIdLengthMax }),
});

const nonEmpty = (maxLength: number) => Type.String({ minLength: 1, maxLength });

export const ClientCreateBody = Type.Object({
  email: Type.String({ format: 'email', minLength: 1, maxLength: maLimits.emailLengthMax }),
  name: nonEmpty(maLimits.nameCreateLengthMax),
  phone: nonEmpty(maLimits.phoneCreateLengthMax),
  bank: Type.Object({
    sbif: nonEmpty(maLimits.bankSbifLengthMax),
    type: Type.String({ pattern: '^[123]$', description: '1 checking, 2 vista/RUT account, 3 savings' }),
    num: nonEmpty(maLimits.bankNumLengthMax),
    rut: Type.String({ minLength: 1, maxLength: maLimits.bankRutLengthMax, description: 'RUT with check digit, e.g. 111111111 or 11.111.111-1' }),
  }),
}, { additionalProperties: false });
export type ClientCreate = Static<typeof ClientCreateBody>;

export const ClientUpdateBody = Type.Object({
  name: Type.Optional(nonEmpty(maLimits.nameUpdateLengthMax)),
  phone: Type.Optional(nonEmpty(maLimits.phoneUpdateLengthMax)),
  bank: Type.Optional(Type.Object({
    sbif: Type.Optional(nonEmpty(maLimits.bankSbifLengthMax)),
    type: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
    num: Type.Optional(nonEmpty(maLimits.bankNumLengthMax)),
    rut: Type.Optional(Type.String({ minLength: 1, maxLength: maLimits.bankRutLengthMax })),
  })),
}, { additionalProperties: false });
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
  bank: Type.Object({ sbif: Type.String(), rut: Type.String(), type: Type.String(), num: Type.String() }),
  ...clientTail,
});

export const AffiliationDetail = Type.Object({
  id: Type.String({ description: 'Membership id' }),
  status: Type.String({ description: 'not found, pending, liquidate, pending for deposit or paid' }),
  token: Type.String(),
  name: Type.String(),
  percentage_affiliation: Type.Number({ description: 'The merchant\'s percent in the membership' }),
  percentage_client: Type.Number({ description: 'This client\'s percent in the membership' }),
});

export const ClientUpdateResponse = Type.Object({
  ...clientFields,
  bank: Type.Object({ sbif: Type.String(), type: Type.String(), num: Type.String(), rut: Type.String() }),
  ...clientTail,
  affiliations_details: Type.Array(AffiliationDetail, { description: 'One entry per membership naming the client (seed: array of object)' }),
});

export const SuspendedResponse = Type.Object({ status: Type.Literal('suspended'), id: Type.String() });

export const MembershipCreateBody = Type.Object({
  name: nonEmpty(maLimits.membershipNameLengthMax),
  percentage: Type.String({ minLength: 1, maxLength: maLimits.percentageLengthMax, description: 'The merchant\'s percent, e.g. "20" or "20.50"' }),
  affiliation: Type.Array(Type.Array(Type.Unknown()), {
    minItems: 1,
    maxItems: maLimits.membershipClientsMax,
    description: 'Pairs [client_id, percentage], e.g. [["ma9fd16221a9645b0036","80"]]',
  }),
}, { additionalProperties: false });
export type MembershipCreate = Static<typeof MembershipCreateBody>;

export const MembershipResponse = Type.Object({
  id: Type.String(),
  status: Type.String({ description: 'register or suspended' }),
  name: Type.String(),
  token: Type.String({ description: 'What a merchant sends as `marketplace` in POST /api/transaction' }),
  percentage: Type.String({ description: 'The merchant\'s percent, two decimals' }),
  affiliations: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), percentage: Type.String() })),
});

export const MembershipCreateResponse = Type.Union([MembershipResponse, RuleFailureBody]);

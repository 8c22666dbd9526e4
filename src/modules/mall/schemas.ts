// TypeBox schemas of the mall API (reference §5; decision 122). The merchant tuples are checked position by
// position in mall-input.ts, so each problem names its place (`merchant.1.0`).
import { Type } from 'typebox';
import { RuleFailureBody } from '../../platform/http/schemas.ts';
import { limits, mallLimits } from '../../limits/index.ts';

export const MallCreateBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: mallLimits.emailLengthMax, format: 'email' }),
  payment: Type.Integer({
    minimum: 1,
    maximum: limits.paymentMethodCodeMax,
    description: 'Payment method code; 99 offers all',
  }),
  merchant: Type.Array(
    Type.Array(Type.Unknown(), {
      description:
        "[store public token or membership token, amount, subject, event code or null, individual order, (optional) the store's urlnotify]",
    }),
    { minItems: 1, maxItems: mallLimits.linesMax },
  ),
  order: Type.String({
    minLength: 1,
    maxLength: mallLimits.orderLengthMax,
    description: 'Your mall order, unique per account (a number is taken as its text)',
  }),
  urlreturn: Type.String({ minLength: 1, maxLength: mallLimits.urlreturnLengthMax }),
  urlnotify: Type.Optional(Type.String({ maxLength: mallLimits.urlnotifyLengthMax })),
  amount: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number(limits.amountMinorMax),
      description: "The total, when sent: must equal the sum of the stores' amounts",
    }),
  ),
  currency: Type.Optional(
    Type.String({ maxLength: limits.currencyCodeLengthMax, description: 'Default CLP' }),
  ),
});

const IndividualOrder = Type.Object({
  merchant: Type.String({
    description:
      "The store's display name (its account's, or the membership's): a store token is never answered back (decision 440)",
  }),
  amount: Type.Integer(),
  subject: Type.String(),
  event: Type.Union([Type.String(), Type.Null()]),
  identificador: Type.String({
    description: "The store transaction's transaction_key (16 digits)",
  }),
  individual_order: Type.String(),
});

const MallCreated = Type.Object({
  status: Type.Literal('success'),
  id: Type.String(),
  individual_orders: Type.Array(IndividualOrder),
  url: Type.String(),
});

export const MallCreateResponse = Type.Union([MallCreated, RuleFailureBody]);

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const MallView = Type.Object({
  status: Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('rejected')]),
  id: Type.String(),
  created_at: Type.String(),
  amount: Type.String(),
  order: Type.String(),
  payment: Type.Union([
    Type.Object({
      media: Type.String(),
      verification_key: Type.String(),
      authorization_code: nullableString,
      last_4_digits: nullableString,
      card_type: Type.String(),
      currency: Type.String(),
    }),
    Type.Null(),
  ]),
  merchant: Type.Array(
    Type.Object({
      name: Type.String(),
      amount: Type.Integer(),
      subject: Type.String(),
      individual_order: Type.String(),
      transaction_id: Type.String({ description: "The store's own transaction (trx...)" }),
      status: Type.String(),
    }),
  ),
});

export const MallParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: mallLimits.idLengthMax }),
});

// TypeBox schemas of the transaction API (seed "Transaction", reference §1.1-1.3).
import { Type, type Static } from 'typebox';
import { exactInteger, nullableObject, RuleFailureBody } from '../../platform/http/schemas.ts';
import { limits, transactionLimits } from '../../limits/index.ts';

export const CreateTransactionBody = Type.Object(
  {
    email: Type.String({
      minLength: 1,
      maxLength: transactionLimits.emailLengthMax,
      format: 'email',
    }),
    order: Type.String({ minLength: 1, maxLength: transactionLimits.orderLengthMax }),
    subject: Type.String({ minLength: 1, maxLength: transactionLimits.subjectLengthMax }),
    amount: Type.Integer({
      minimum: 1,
      maximum: transactionLimits.amountIntegerMax,
      description: 'Integer minor units, at most 14 digits',
    }),
    currency: Type.Optional(
      Type.String({ maxLength: limits.currencyCodeLengthMax, description: 'Default CLP' }),
    ),
    payment: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: limits.paymentMethodCodeMax,
        description: 'Payment method code; 99 offers all',
      }),
    ),
    expired: Type.Optional(
      Type.String({
        maxLength: transactionLimits.expiredTextLengthMax,
        description: '`YYYY-MM-DD HH:MM:SS` in the service time zone, more than 5 minutes ahead',
      }),
    ),
    urlreturn: Type.Optional(Type.String({ maxLength: transactionLimits.urlreturnLengthMax })),
    urlnotify: Type.Optional(Type.String({ maxLength: transactionLimits.urlnotifyLengthMax })),
    additional_parameters: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'order_ext, payer_rut, payer_bank and free keys',
        },
      ),
    ),
    marketplace: Type.Optional(
      Type.String({
        maxLength: transactionLimits.marketplaceLengthMax,
        description: 'A membership token: the net divides among its clients',
      }),
    ),
    event: Type.Optional(
      Type.String({
        maxLength: transactionLimits.eventLengthMax,
        description: 'Your event code: the sale counts for that event (not with marketplace)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateTransactionInput = Static<typeof CreateTransactionBody>;

export const CreateTransactionResponse = Type.Union([
  Type.Object({ status: Type.Literal('pending'), id: Type.String(), url: Type.String() }),
  RuleFailureBody,
]);

const nullableString = Type.Union([Type.String(), Type.Null()]);

/**
 * The payment's `additional_parameters`: the request's own keys, and the keys the reference's OpenAPI lists for
 * every payment, present as null when unknown (a card payment has no payer RUT, bank or account; decision 440).
 */
const PaymentAdditionalParameters = Type.Object(
  {
    identificador: Type.Union([Type.String(), Type.Null()], {
      description: "The payer's RUT, when the method tells it (bank transfers)",
    }),
    banco: Type.Union([Type.String(), Type.Null()], {
      description: "The payer's bank, when the method tells it",
    }),
    numero_cuenta: Type.Union([Type.String(), Type.Null()], {
      description: "The payer's account number: null, no method tells it",
    }),
  },
  { additionalProperties: true },
);

const PaymentView = Type.Object({
  start: nullableString,
  end: nullableString,
  media: nullableString,
  transaction_id: exactInteger({ description: "The sale's number" }),
  payment_key: Type.String(),
  transaction_key: nullableString,
  deposit_date: nullableString,
  verification_key: Type.String(),
  authorization_code: nullableString,
  last_4_digits: nullableString,
  installments: Type.Integer(),
  card_type: nullableString,
  additional_parameters: PaymentAdditionalParameters,
  currency: Type.String(),
});

const NullifyView = Type.Union([Type.Object({ status: Type.String() }), Type.Null()]);
const GatewayResponse = Type.Object({ status: Type.String(), message: Type.String() });

export const TransactionView = Type.Object({
  status: Type.String(),
  id: Type.String(),
  created_at: Type.String(),
  order: Type.String(),
  email: Type.String(),
  subject: Type.String(),
  amount: Type.String(),
  payment: nullableObject(PaymentView),
  nullify: NullifyView,
  gateway_response: GatewayResponse,
});

const TransactionListItem = Type.Object({
  id: Type.String(),
  status: Type.String(),
  created_at: Type.String(),
  email: Type.String(),
  amount: Type.Integer(),
  order: Type.String(),
  subject: Type.String(),
  payment: nullableObject(PaymentView),
  nullify: NullifyView,
  gateway_response: GatewayResponse,
});

export const TransactionListResponse = Type.Union([
  Type.Object({ transaction: Type.Array(TransactionListItem) }),
  Type.Object({ status: Type.Literal('failed'), message_error: Type.String() }),
]);

export const TransactionIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: limits.transactionIdLengthMax }),
});

export const TransactionListQuery = Type.Object({
  date_init: Type.Optional(Type.String({ maxLength: limits.dateTextLengthMax })),
  date_end: Type.Optional(Type.String({ maxLength: limits.dateTextLengthMax })),
  pending: Type.Optional(Type.String({ maxLength: limits.flagTextLengthMax })),
  register: Type.Optional(Type.String({ maxLength: limits.flagTextLengthMax })),
  success: Type.Optional(Type.String({ maxLength: limits.flagTextLengthMax })),
  rejected: Type.Optional(Type.String({ maxLength: limits.flagTextLengthMax })),
  refunded: Type.Optional(Type.String({ maxLength: limits.flagTextLengthMax })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.transactionPageMax })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.pageSizeMax })),
});
export type TransactionListInput = Static<typeof TransactionListQuery>;

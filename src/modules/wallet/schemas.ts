// TypeBox schemas of the Wallet endpoints (seed "Wallet"; reference §9), lengths as the seed states them.
import { Type } from 'typebox';
import { limits } from '../../limits/index.ts';
import { exactInteger, RuleFailureBody } from '../../platform/http/schemas.ts';

/**
 * The seed gives order_ext no length of its own; the reference keeps it among additional_parameters, whose
 * 4000 characters bound it here too.
 */
const orderExtLengthMax = limits.additionalParametersCharsMax;
/** Banco Estado's bank code: its account numbers have their own bound (limits.bancoEstadoNumLengthMax). */
export const bancoEstadoCode = '0012';

const Amount = Type.Integer({ minimum: 1, maximum: Number(limits.amountMinorMax) });
const Required = (maxLength: number) => Type.String({ minLength: 1, maxLength });

export const PayoutCreateBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: limits.payoutEmailLengthMax, format: 'email' }),
    phone: Type.Optional(Type.String({ maxLength: limits.payoutPhoneLengthMax })),
    subject: Required(limits.payoutSubjectLengthMax),
    currency: Required(limits.currencyCodeLengthMax),
    order: Required(limits.payoutOrderLengthMax),
    amount: Amount,
    accountbank_name: Required(limits.bankHolderNameLengthMax),
    accountbank_rut: Required(limits.bankRutLengthMax),
    accountbank_sbif: Required(limits.payoutBankSbifLengthMax),
    accountbank_type: Type.String({
      minLength: 1,
      maxLength: 1,
      pattern: '^[123]$',
      description: '1 checking, 2 vista/RUT account, 3 savings',
    }),
    accountbank_num: Required(limits.bankNumLengthMax),
    url_notify: Type.Optional(
      Type.String({ maxLength: limits.callbackUrlLengthMax, format: 'uri', pattern: '^https?://' }),
    ),
    additional_parameters: Type.Optional(
      Type.Object(
        {
          parameter_1: Type.Optional(Type.String()),
          parameter_2: Type.Optional(Type.String()),
        },
        { additionalProperties: true },
      ),
    ),
    order_ext: Type.Optional(Type.String({ maxLength: orderExtLengthMax })),
  },
  { additionalProperties: false },
);

export const WithdrawBody = Type.Object(
  {
    subject: Required(limits.payoutSubjectLengthMax),
    currency: Required(limits.currencyCodeLengthMax),
    order: Required(limits.payoutOrderLengthMax),
    amount: Amount,
  },
  { additionalProperties: false },
);

export const SandboxCreditBody = Type.Object(
  {
    amount: Amount,
    currency: Type.Optional(Required(limits.currencyCodeLengthMax)),
    reason: Type.Optional(Type.String({ maxLength: limits.walletCreditReasonLengthMax })),
  },
  { additionalProperties: false },
);

export const WalletQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.walletPageMax })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.pageSizeMax })),
  currency: Type.Optional(Required(limits.currencyCodeLengthMax)),
});

export const IdParams = Type.Object({ id: Required(limits.payoutIdLengthMax) });

const PayoutCreated = Type.Object({
  status: Type.Literal('success'),
  identifier_wallet: Type.String(),
  identifier_payout: Type.String(),
});

const WithdrawCreated = Type.Object({
  status: Type.Literal('Success', { description: 'Capitalised as in the seed sample' }),
  identifier_wallet: Type.String(),
});

export const SandboxCredited = Type.Object({
  status: Type.Literal('success'),
  identifier_wallet: Type.String(),
  amount_available: exactInteger({
    description:
      'The balance after the credit and what it paid of a chargeback debt (decision 1016)',
  }),
  currency: Type.String(),
});

const payoutFields = {
  id: Type.String(),
  phone: Type.String(),
  email: Type.String(),
  subject: Type.String(),
  amount: Type.String(),
  accountbank_rut: Type.String(),
  accountbank_name: Type.String(),
  accountbank_type: Type.Integer(),
  accountbank_num: Type.Union([Type.Integer(), Type.String()], {
    description: 'Integer unless that would change it (leading zero, non-digits)',
  }),
  accountbank_sbif: Type.String(),
  status: Type.String(),
  update_at: Type.String(),
};

const PayoutInMovement = Type.Object(payoutFields);

export const PayoutResponse = Type.Object({
  payout: Type.Object({ ...payoutFields, origin_wallet: Type.String() }),
});

export const PayoutV3Response = Type.Object({
  payout: Type.Object({
    ...payoutFields,
    origin_wallet: Type.String(),
    reason_rejection: Type.String(),
  }),
});

const WalletMovement = Type.Object({
  id: Type.String(),
  order: Type.String(),
  subject: Type.String(),
  created_at: Type.String(),
  income_expense: Type.String(),
  status: Type.String(),
  amount: Type.String(),
  actual_amount: Type.String(),
  origin_liquidation: Type.Union([Type.String(), Type.Null()]),
  currency: Type.String(),
  payout: Type.Union([PayoutInMovement, Type.Null()]),
});

export const WalletSummary = Type.Object({
  status: Type.Literal('success'),
  current_id: Type.String(),
  amount_available: exactInteger({ description: 'The available balance' }),
  currency: Type.String(),
  filter: Type.Object({
    page: Type.Integer(),
    per_page: Type.Integer(),
    currency: Type.String(),
    id: Type.String(),
  }),
  wallet_movements: Type.Array(WalletMovement),
});

/**
 * A refusal still carries the identifiers the seed's 200 declares, empty, for clients that deserialise that shape
 * (decision 755).
 */
const refusedDescription =
  'A business rule refused the operation (HTTP 200); the identifiers are empty.';
const PayoutRefused = Type.Object(
  {
    ...RuleFailureBody.properties,
    identifier_wallet: Type.Literal(''),
    identifier_payout: Type.Literal(''),
  },
  { description: refusedDescription },
);
const WithdrawRefused = Type.Object(
  { ...RuleFailureBody.properties, identifier_wallet: Type.Literal('') },
  { description: refusedDescription },
);

export const PayoutCreateResponse = Type.Union([PayoutCreated, PayoutRefused]);
export const WithdrawResponse = Type.Union([WithdrawCreated, WithdrawRefused]);

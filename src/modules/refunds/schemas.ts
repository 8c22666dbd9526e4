// TypeBox schemas of POST /api/nullification and GET /api/nullification/{id} (reference §3.1, §3.2).
import { Type } from 'typebox';
import { RuleFailureBody } from '../../platform/http/schemas.ts';
import { refundLimits, transactionLimits } from '../../limits/index.ts';
import { nullificationStatuses } from './states.ts';

export const NullificationBody = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: refundLimits.idLengthMax,
      description: 'The transaction to refund',
    }),
    amount: Type.Integer({
      minimum: 1,
      maximum: transactionLimits.amountIntegerMax,
      description: 'Integer minor units to refund, at most what is left',
    }),
    subject: Type.String({
      minLength: 1,
      maxLength: refundLimits.subjectLengthMax,
      description: 'Why',
    }),
  },
  { additionalProperties: false },
);

export const NullificationIdParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: refundLimits.idLengthMax,
    description: 'A transaction id (its latest refund) or a refund id',
  }),
});

const NullifyView = Type.Object({
  id: Type.String({ description: 'The transaction id' }),
  amount: Type.Integer(),
  currency: Type.String(),
  type: Type.Union([Type.Literal('total'), Type.Literal('partial')], {
    description: 'total: executed with the funds there; partial: waiting for funds',
  }),
  status_nullify: Type.Union(
    [
      Type.Literal('pending'),
      Type.Literal('awaiting_funds'),
      Type.Literal('waiting_bank_details'),
      Type.Literal('complete'),
      Type.Literal('reverse_deleted'),
      Type.Literal('reverse_completed'),
    ],
    { description: `one of ${nullificationStatuses.join(', ')}` },
  ),
  payment: Type.Object({ gateway: Type.String(), payment_type: Type.String() }),
  created_at: Type.String({ description: 'ISO 8601, UTC' }),
  updated_at: Type.String({ description: 'ISO 8601, UTC' }),
});

const NullificationCreated = Type.Object({
  status: Type.Literal('success'),
  nullify: NullifyView,
  gateway_response: Type.Object({
    status: Type.String(),
    message: Type.String(),
    notify: Type.String(),
  }),
});

export const NullificationResponse = Type.Union([NullificationCreated, RuleFailureBody]);

export const NullificationGetResponse = Type.Object({ nullify: NullifyView });

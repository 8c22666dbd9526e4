// TypeBox schemas of the dispute routes (decision 530): the merchant's and the sandbox's.
import { Type } from 'typebox';
import { RuleFailureBody } from '../../platform/http/schemas.ts';
import { disputeLimits, refundLimits, transactionLimits } from '../../limits/index.ts';
import { disputeOutcomes, disputeStatuses } from './states.ts';

export const DisputeIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: refundLimits.idLengthMax, description: 'dsp...' }),
});

export const DisputeListQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: disputeLimits.perPageMax })),
  },
  { additionalProperties: false },
);

const DisputeView = Type.Object({
  id: Type.String(),
  transaction_id: Type.String(),
  amount: Type.Integer({ description: 'Integer minor units held by the dispute' }),
  currency: Type.String(),
  reason: Type.String(),
  status: Type.Union(
    [
      Type.Literal('needs_response'),
      Type.Literal('under_review'),
      Type.Literal('won'),
      Type.Literal('lost'),
      Type.Literal('accepted'),
    ],
    { description: `one of ${disputeStatuses.join(', ')}` },
  ),
  respond_by: Type.String({ description: 'The last moment to send evidence' }),
  evidence: Type.Object({
    text: Type.Union([Type.String(), Type.Null()]),
    urls: Type.Array(Type.String()),
  }),
  from_wallet: Type.Integer({ description: 'What the opening took from the available wallet' }),
  debt: Type.Integer({ description: "The rest, recorded as the merchant's debt to the service" }),
  created_at: Type.String(),
  updated_at: Type.String(),
  resolved_at: Type.Union([Type.String(), Type.Null()]),
});

const DisputeAnswer = Type.Object({ status: Type.Literal('success'), dispute: DisputeView });
export const DisputeResponse = Type.Union([DisputeAnswer, RuleFailureBody]);
export const DisputeGetResponse = DisputeAnswer;

export const DisputeListResponse = Type.Object({
  status: Type.Literal('success'),
  disputes: Type.Array(DisputeView),
  total: Type.Integer(),
});

export const EvidenceBody = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: disputeLimits.evidenceTextLengthMax }),
    urls: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: disputeLimits.evidenceUrlLengthMax }), {
        maxItems: disputeLimits.evidenceUrlsMax,
        description: 'https links to documents',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SandboxOpenBody = Type.Object(
  {
    transaction_id: Type.String({ minLength: 1, maxLength: refundLimits.idLengthMax }),
    amount: Type.Integer({ minimum: 1, maximum: transactionLimits.amountIntegerMax }),
    reason: Type.String({ minLength: 1, maxLength: disputeLimits.reasonLengthMax }),
  },
  { additionalProperties: false },
);

export const SandboxResolveBody = Type.Object(
  {
    outcome: Type.Union([Type.Literal('won'), Type.Literal('lost')], {
      description: `one of ${disputeOutcomes.join(', ')}`,
    }),
  },
  { additionalProperties: false },
);

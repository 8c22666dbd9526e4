// TypeBox shapes of POST /api/sutransaction (reference §7.11, §8.4).
import { Type, type Static } from 'typebox';
import { RuleFailureBody } from '../../platform/http/schemas.ts';
import { subscriptionLimits as L, transactionLimits } from '../../limits/index.ts';

export const ConsumptionChargeBody = Type.Object(
  {
    suscription: Type.String({
      minLength: 1,
      maxLength: L.suscriptionFieldLengthMax,
      description: 'Subscription id (`su...`)',
    }),
    amount: Type.Integer({
      minimum: 1,
      maximum: transactionLimits.amountIntegerMax,
      description: 'CLP, as a string or a number',
    }),
    order: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: L.chargeOrderLengthMax,
        description: 'Your order: charged once per account, however often it is sent',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: L.chargeDescriptionLengthMax })),
    marketplace: Type.Optional(
      Type.String({
        maxLength: transactionLimits.marketplaceLengthMax,
        description:
          "A membership of yours, by id (`ma...`) or token: the charge's net divides among its clients as a marketplace payment's does",
      }),
    ),
    card: Type.Optional(
      Type.String({
        maxLength: L.cardFieldLengthMax,
        description: 'A card identifier (`sure...`) of the subscription; default its newest card',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ConsumptionChargeInput = Static<typeof ConsumptionChargeBody>;

export const ConsumptionChargeResponse = Type.Union([
  Type.Object({
    status: Type.String({
      description: 'success, failed (declined) or pending (still being charged by another request)',
    }),
    order: Type.String(),
    amount: Type.String(),
    transaction_id: Type.String(),
    verification_key: Type.String({ description: '64 hex' }),
  }),
  RuleFailureBody,
]);

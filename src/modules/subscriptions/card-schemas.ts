// TypeBox shapes of the card endpoints (reference §7.12, §7.13, §8.5).
import { Type } from 'typebox';
import { subscriptionLimits as L } from '../../limits/index.ts';

export const CardLinkBody = Type.Object(
  {
    suscription: Type.String({
      minLength: 1,
      maxLength: L.suscriptionFieldLengthMax,
      description: 'Subscription id (`su...`)',
    }),
  },
  { additionalProperties: false },
);

export const CardLinkResponse = Type.Object({
  status: Type.Literal('success'),
  id: Type.String(),
  url: Type.String({ description: 'A new hosted enrolment page' }),
});

export const CardDeleteBody = Type.Object(
  {
    card: Type.Optional(
      Type.String({ maxLength: L.cardFieldLengthMax, description: 'Card identifier (`sure...`)' }),
    ),
    suscription: Type.Optional(
      Type.String({
        maxLength: L.suscriptionFieldLengthMax,
        description: "Alias of `card` (the reference's field table names it so)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const CardDeleteResponse = Type.Object({
  status: Type.Literal('Delete'),
  card: Type.String(),
});

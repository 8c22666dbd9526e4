import { Type } from 'typebox';
import { limits } from '../../limits/index.ts';

// Each unit alone may reach the whole advance bound; their sum is checked against it by the route.
const advanceSecondsMax = limits.sandboxAdvanceMsMax / 1000;

export const AdvanceBody = Type.Object(
  {
    // A move of nothing is refused (`body:is empty`): the docs' example moves a day (decision 700).
    days: Type.Optional(
      Type.Integer({ minimum: 0, maximum: advanceSecondsMax / 86_400, examples: [1] }),
    ),
    hours: Type.Optional(Type.Integer({ minimum: 0, maximum: advanceSecondsMax / 3600 })),
    minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: advanceSecondsMax / 60 })),
    seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: advanceSecondsMax })),
  },
  { additionalProperties: false },
);

export const AdvanceResponse = Type.Object({
  status: Type.Literal('success'),
  now: Type.String({ description: "The account's sandbox time after the move" }),
  offset_seconds: Type.Integer(),
  processed: Type.Record(Type.String(), Type.Integer(), {
    description: 'Rows each due-work handler processed',
  }),
});

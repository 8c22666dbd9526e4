import { Type } from 'typebox';

export const AdvanceBody = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 0, maximum: 400 })),
  hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 9600 })),
  minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 576000 })),
  seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 34560000 })),
}, { additionalProperties: false });

export const AdvanceResponse = Type.Object({
  status: Type.Literal('success'),
  now: Type.String({ description: 'The account\'s sandbox time after the move' }),
  offset_seconds: Type.Integer(),
  processed: Type.Record(Type.String(), Type.Integer(), { description: 'Rows each due-work handler processed' }),
});

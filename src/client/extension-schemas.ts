// Shapes of the two routes that declare their schemas inside routes.ts instead of exporting them from a
// schemas.ts (src/modules/account/routes.ts, src/modules/sandbox/routes.ts), so the client cannot import them.
// test/client/client-coverage.test.ts compares these with the served OpenAPI document, so they cannot drift;
// once those routes export their schemas, import them in types.ts and delete this file.
import { Type } from 'typebox';

export const AccountResponse = Type.Object({
  status: Type.Literal('success'),
  id: Type.String(),
  name: Type.String(),
  mode: Type.String(),
});

export const ClockAdvanceBody = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 0, maximum: 400 })),
  hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 9600 })),
  minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 576000 })),
  seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 34560000 })),
}, { additionalProperties: false });

export const ClockAdvanceResponse = Type.Object({
  status: Type.Literal('success'),
  now: Type.String(),
  offset_seconds: Type.Integer(),
  processed: Type.Record(Type.String(), Type.Integer()),
});

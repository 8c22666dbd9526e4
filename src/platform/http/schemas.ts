// Shared TypeBox pieces: error envelopes and tolerant scalars (supplement §1.2).
import { Type, type TSchema } from 'typebox';

export const ErrorEnvelope = Type.Object(
  {
    status: Type.Literal('failed'),
    type: Type.String(),
    message_error: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.String())),
    id: Type.Optional(Type.String()),
    request_id: Type.Optional(Type.String()),
  },
  { $id: 'ErrorEnvelope', description: "Error body in the seed's shape." },
);

export const RuleFailureBody = Type.Object(
  {
    status: Type.Literal('failed'),
    type: Type.String(),
    message_error: Type.String(),
  },
  { description: 'A business rule refused the operation (HTTP 200).' },
);

/** Standard error responses for an authenticated route; merge with the route's own 200. */
export function withErrors<T extends Record<number, TSchema>>(ok: T) {
  return { ...ok, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope };
}

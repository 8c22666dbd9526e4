// The error answers every /api operation shares (decision 700). The conventions send them from hooks and handlers
// no route declares (406 and 415 from conventions.ts, 409 and 422 from the Idempotency-Key's runner, 429 from the
// rate limit, 500 and 503 from the one error handler), so /api/openapi.json adds them to each operation here, with
// the ErrorEnvelope schema, rather than each route listing them. Only the docs app's copy of a route gets them: the
// server's own routes keep their response schemas, so the bytes Fastify serializes for an answer do not change.
// 405 is not an operation's answer (it is the answer for a method a path does not have), so no operation lists it.
import type { TSchema } from 'typebox';
import { coveredMethods } from '../idempotency/plugin.ts';
import { ErrorEnvelope } from './schemas.ts';

/** What an operation of the document is: its method, and how it authenticates (`none`, `token`, `sign`...). */
interface Operation {
  readonly method: string;
  readonly auth: string;
}

/** The error statuses `op` can answer besides its route's own, each with the ErrorEnvelope schema. */
export function sharedErrors(op: Operation): Readonly<Record<string, TSchema>> {
  const statuses = [406, 429, 500, 503];
  // A body in another media type than JSON: any method but GET, whose body Fastify never reads.
  if (op.method !== 'GET') statuses.push(415);
  // An authenticated write claims its Idempotency-Key (src/platform/idempotency/plugin.ts).
  if (op.auth !== 'none' && coveredMethods.has(op.method)) statuses.push(409, 422);
  return Object.fromEntries(statuses.map((status) => [status, ErrorEnvelope]));
}

// Shared TypeBox pieces: error envelopes and tolerant scalars (supplement §1.2).
import {
  Type,
  type Static,
  type TLiteral,
  type TObject,
  type TSchema,
  type TSchemaOptions,
  type TUnion,
} from 'typebox';

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

/** One literal schema per value of `T`, as a tuple. */
type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/**
 * A union of one literal per value of an `as const` list (STYLE rule 6). `Type.Union(values.map(Type.Literal))`
 * builds the same schema, but types its members as an array, not a tuple, so Static<> of it is `never` and the
 * typed client declared such a field `undefined` (decision 700); this keeps the tuple.
 */
export function literalUnion<const T extends readonly string[]>(
  values: T,
  options?: TSchemaOptions,
): TUnion<Literals<T>> {
  const members = values.map((value) => Type.Literal(value)) as [...Literals<T>];
  return Type.Union<Literals<T>>(members, options);
}

/**
 * A JSON integer that may pass 2^53 - 1 (a wallet's balance, a sum of amounts; decision 720): the handler gives a
 * number or, past the safe range, a bigint, which fast-json-stringify writes as its exact digits. A client that reads
 * JSON numbers as doubles rounds such a value; the typed client reads it as a bigint where its runtime lets it.
 */
export function exactInteger(options?: TSchemaOptions) {
  return Type.Unsafe<number | bigint>(
    Type.Integer({
      ...options,
      description: `${options?.description ?? 'An integer'}; exact at any size (past 2^53 - 1, more digits than a double keeps)`,
    }),
  );
}

/**
 * An object or null, as one schema of two types (`type: ["object", "null"]`) rather than a union: the serializer picks a
 * union's branch by validating the value, and validation takes no bigint, so an `exactInteger` past 2^53 - 1 inside a
 * union's object made the answer a 500; a type list is chosen by the value's JSON type alone (decision 940).
 */
export function nullableObject<T extends TObject>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: ['object', 'null'] });
}

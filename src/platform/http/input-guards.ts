// Checks on the raw input that the schemas cannot make, for every route, so that a client's mistake is a
// validation error and never a database error (a 500), a silently altered value or an amount nobody asked for.
//  - Text PostgreSQL cannot store: a NUL character (refused in TEXT and JSONB) or a lone UTF-16 surrogate (refused
//    in JSONB, silently replaced in TEXT). JSON allows both.
//  - Integers: supplement §1.2 accepts a JSON number or a string of digits. Ajv's type coercion also turns `true`
//    into 1 and reads "0x10", "1e3" or " 25 " as numbers; those are marked here so that the schema refuses them.
//  - Strict coercion (decision 072): a boolean never fills a string or an integer field (Ajv makes `false` the
//    text "false"), and neither does a number written with an exponent (`1e308`); an integer field never takes
//    one too large to be exact (12345678901234567890). A string field takes a number only when it can keep its
//    text (`25000`, `12.5`, and plain digits past 2^53, which the JSON parser keeps as text: decision 755).
//    A string field whose schema declares `x-cobro-number-as-written` takes any number as the text it was written
//    in (`33.330`, `1e1`), for its own reader to judge (decision 1180: the merchant's percentage).
//  - A boolean field takes `1` and `0`, as PHP's http_build_query writes true and false (decision 755).
//    Where the field's own bound refuses the value too (a text too long, a maximum), its problem is reported.
//  - "Not given" (decision 755): null for an optional field, `[]` for an object, "" for an optional number or URL.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound, validationError } from '../errors/errors.ts';
import { limits } from '../../limits/index.ts';
import { hasExponent, numberTextOf } from './json-body.ts';
import { integerOfNumber } from './integer-number.ts';
import { numberAsWritten } from './number-as-written.ts';

export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

/**
 * Whether every text of the path's parameters, the query and the form is one PostgreSQL can take: the pages (the
 * dashboard's, the checkout's) refuse the rest with a page of their own before any handler reads it.
 */
export function storableInput(request: Pick<FastifyRequest, 'params' | 'query' | 'body'>): boolean {
  const storable = (value: unknown): boolean =>
    typeof value === 'string'
      ? isStorableText(value)
      : Array.isArray(value)
        ? value.every(storable)
        : true;
  return [request.params, request.query, request.body].every(
    (source) =>
      source === null ||
      typeof source !== 'object' ||
      Object.entries(source).every(([key, value]) => isStorableText(key) && storable(value)),
  );
}

interface SchemaNode {
  readonly type?: unknown;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly maximum?: unknown;
  readonly minimum?: unknown;
  readonly maxLength?: unknown;
  readonly format?: unknown;
  readonly pattern?: unknown;
  readonly [numberAsWritten]?: unknown;
}

type ObjectNode = SchemaNode & { readonly properties: Readonly<Record<string, SchemaNode>> };

// A route's schemas are static objects: their declared fields are listed once, not on every request (decision 320).
interface Declared {
  readonly fields: readonly string[];
  readonly entries: readonly (readonly [string, SchemaNode])[];
  readonly optional: ReadonlySet<string>;
}
const declaredBySchema = new WeakMap<ObjectNode, Declared>();

function declared(schema: ObjectNode): Declared {
  let listed = declaredBySchema.get(schema);
  if (listed === undefined) {
    const entries = Object.entries(schema.properties);
    const required = new Set(schema.required ?? []);
    listed = {
      fields: entries.map(([field]) => field),
      entries,
      optional: new Set(entries.map(([field]) => field).filter((field) => !required.has(field))),
    };
    declaredBySchema.set(schema, listed);
  }
  return listed;
}

function walkText(
  value: unknown,
  field: string,
  depth: number,
  problems: Record<string, string>,
): void {
  if (typeof value === 'string') {
    if (!isStorableText(value)) problems[field] = 'invalid';
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth >= limits.inputDepthMax) {
    problems[field] = 'invalid';
    return;
  }
  for (const [key, inner] of Object.entries(value)) {
    // A bad key makes the whole object unstorable; it is reported under the object's own name.
    if (!isStorableText(key)) problems[field] = 'invalid';
    else walkText(inner, `${field}.${key}`, depth + 1, problems);
  }
}

/**
 * Problems for every field the schema knows (or, without declared properties, every field) that holds such text.
 * Fields the schema does not declare are dropped unread, so they are not judged.
 */
function unstorableText(source: unknown, schema: SchemaNode | undefined): Record<string, string> {
  const problems: Record<string, string> = {};
  if (source === null || typeof source !== 'object') return problems;
  const record = source as Record<string, unknown>;
  const fields =
    schema?.properties !== undefined ? declared(schema as ObjectNode).fields : Object.keys(record);
  for (const field of fields) walkText(record[field], field, 1, problems);
  return problems;
}

const digits = /^-?[0-9]+$/;

/**
 * Stands in for a loose value: no coercion turns an object into a number or a string, so the schema reports
 * `field: invalid`.
 */
const looseValue = Object.freeze({ looseValue: true });

/** A JSON number that cannot fill a string or an integer field: its text is an exponent or it is past exactness. */
function isInexactNumber(holder: object, key: string, value: number): boolean {
  const text = numberTextOf(holder, key);
  return (
    (Number.isInteger(value) && !Number.isSafeInteger(value)) ||
    (text !== undefined && hasExponent(text))
  );
}

/** Past the schema's maximum: the schema's own `too large` says more than `invalid`, and refuses it just as well. */
function isPastMaximum(value: number, schema: SchemaNode): boolean {
  return typeof schema.maximum === 'number' && value > schema.maximum;
}

/**
 * What `holder[key]`, declared by `schema`, must become before the schema coerces it: `looseValue` (refused as
 * `invalid`), a number's text (longer than the field takes, refused as `too long`), the largest double (for digits
 * past it, refused as `too large`), or `undefined` to leave it.
 */
function replacementOf(holder: object, key: string, value: unknown, schema: SchemaNode): unknown {
  if (schema.type === 'boolean') return value === '1' ? true : value === '0' ? false : undefined;
  if (typeof value === 'boolean')
    return schema.type === 'integer' || schema.type === 'string' ? looseValue : undefined;
  if (schema.type === 'integer') {
    if (typeof value === 'string') {
      if (!digits.test(value)) return looseValue;
      const read = Number(value);
      if (Number.isSafeInteger(read)) return undefined;
      if (!isPastMaximum(read, schema)) return looseValue;
      // 309 digits and more read as Infinity, which Ajv's `maximum` lets through (it compares finite numbers
      // only): the largest double stands in, so that the schema still says `too large` (decision 680).
      return Number.isFinite(read) ? undefined : Number.MAX_VALUE;
    }
    if (typeof value !== 'number') return undefined;
    const read = integerOfNumber(numberTextOf(holder, key), value, schema);
    return read === 'invalid' ? looseValue : read;
  }
  if (schema.type === 'string' && typeof value === 'number') {
    const text = numberTextOf(holder, key);
    // Any other number text (trailing zeros, `-0`) would not survive either: String(1.50) is "1.5".
    if (text === undefined && !isInexactNumber(holder, key, value)) return undefined;
    const written = text ?? String(value);
    // A field whose reader reads the number from its text takes that text (the schema still bounds its length).
    if (schema[numberAsWritten] === true) return written;
    // A field's length limit applies to the text (supplement §1.2), whatever else is wrong with it.
    return typeof schema.maxLength === 'number' && written.length > schema.maxLength
      ? written
      : looseValue;
  }
  return undefined;
}

/** Marks every string or integer field of the schema (nested objects and arrays too) holding a loose value. */
function markLooseScalars(
  holder: unknown,
  key: string,
  schema: SchemaNode | undefined,
  depth: number,
): void {
  if (
    holder === null ||
    typeof holder !== 'object' ||
    schema === undefined ||
    depth >= limits.inputDepthMax
  )
    return;
  const record = holder as Record<string, unknown>;
  const value = record[key];
  // null is no integer: absent for an optional field, `is empty` for a required one (not 0 and `too small`).
  if (schema.type === 'integer' && value === null) {
    delete record[key];
    return;
  }
  const replacement = replacementOf(record, key, value, schema);
  if (replacement !== undefined) record[key] = replacement;
  else if (
    schema.type === 'object' &&
    schema.properties !== undefined &&
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value)
  ) {
    const fields = declared(schema as ObjectNode);
    dropAbsentValues(value as Record<string, unknown>, fields);
    for (const [field, sub] of fields.entries) markLooseScalars(value, field, sub, depth + 1);
  } else if (schema.type === 'array' && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      markLooseScalars(value, String(i), schema.items, depth + 1);
  }
}

/** A schema with one JSON type of its own: a union (which may take null on purpose) has none. */
function takesNull(schema: SchemaNode): boolean {
  return typeof schema.type !== 'string' || schema.type === 'null';
}

/** A text the field's own rules refuse when empty: a number, or a text with a format or a pattern (a URL). */
function refusesEmpty(schema: SchemaNode): boolean {
  return (
    schema.type === 'integer' ||
    (schema.type === 'string' && (schema.format !== undefined || schema.pattern !== undefined))
  );
}

/**
 * Values that say "not given" the ways clients write it (decision 755): null for an optional field (typed clients
 * serialise every member, PHP's `?? null`), `[]` for an object (PHP's json_encode of an empty array; `{}` when the
 * object is required, so that its own fields are reported), and "" for an optional number or URL.
 */
function dropAbsentValues(record: Record<string, unknown>, fields: Declared): void {
  for (const [field, sub] of fields.entries) {
    const value = record[field];
    const optional = fields.optional.has(field);
    if (value === null && optional && !takesNull(sub)) delete record[field];
    else if (sub.type === 'object' && Array.isArray(value) && value.length === 0) {
      if (optional) delete record[field];
      else record[field] = {};
    } else if (value === '' && optional && refusesEmpty(sub)) delete record[field];
  }
}

function routeSchema(
  schema: Record<string, unknown> | undefined,
  part: 'body' | 'querystring',
): SchemaNode | undefined {
  return schema?.[part] as SchemaNode | undefined;
}

export function registerInputGuards(app: FastifyInstance): void {
  // After authentication (registered earlier) and before the schema coerces anything or a key is claimed.
  // A callback hook: no promise per request (decision 250). A throw reaches Fastify as the hook's error.
  app.addHook('preValidation', (request, _reply, done) => {
    guardInput(request);
    done();
  });
}

function guardInput(request: FastifyRequest): void {
  // Pages (the checkout) answer their own mistakes with HTML pages.
  if (request.is404) return;
  // `routeOptions` is a getter that builds a new object on each read: read once (decision 250).
  const route = request.routeOptions;
  if (!(route.url ?? '').startsWith('/api')) return;
  const params = request.params as Record<string, unknown> | undefined;
  if (
    params !== undefined &&
    Object.values(params).some((v) => typeof v === 'string' && !isStorableText(v))
  ) {
    // No stored id can hold such text, so nothing answers to it.
    throw notFound('resource');
  }
  const schema = route.schema as Record<string, unknown> | undefined;
  const bodySchema = routeSchema(schema, 'body');
  const querySchema = routeSchema(schema, 'querystring');
  const problems = {
    ...unstorableText(request.query, querySchema),
    ...unstorableText(request.body, bodySchema),
  };
  if (Object.keys(problems).length > 0) throw validationError(problems);
  // The body and query sit under a holder of their own, so that the walk starts at their schema's top.
  markLooseScalars({ body: request.body }, 'body', bodySchema, 0);
  markLooseScalars({ query: request.query }, 'query', querySchema, 0);
}

// Checks on the raw input that the schemas cannot make, for every route, so that a client's mistake is a
// validation error and never a database error (a 500), a silently altered value or an amount nobody asked for.
//  - Text PostgreSQL cannot store: a NUL character (refused in TEXT and JSONB) or a lone UTF-16 surrogate (refused
//    in JSONB, silently replaced in TEXT). JSON allows both.
//  - Integers: supplement §1.2 accepts a JSON number or a string of digits. Ajv's type coercion also turns `true`
//    into 1 and reads "0x10", "1e3" or " 25 " as numbers; those are marked here so that the schema refuses them.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound, validationError } from '../errors.ts';
import { limits } from '../../limits.ts';

export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

interface SchemaNode {
  readonly type?: unknown;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
}

function walkText(value: unknown, field: string, depth: number, problems: Record<string, string>): void {
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
  const fields = schema?.properties !== undefined ? Object.keys(schema.properties) : Object.keys(record);
  for (const field of fields) walkText(record[field], field, 1, problems);
  return problems;
}

const digits = /^-?[0-9]+$/;

/** Stands in for a loose integer: no coercion turns an object into a number, so the schema reports `field: invalid`. */
const notAnInteger = Object.freeze({ notAnInteger: true });

/** Marks every integer field of the schema (nested objects too) holding a boolean or a string other than digits. */
function markLooseIntegers(source: unknown, schema: SchemaNode | undefined, depth = 0): void {
  if (source === null || typeof source !== 'object' || Array.isArray(source) || schema?.properties === undefined || depth >= limits.inputDepthMax) return;
  const record = source as Record<string, unknown>;
  for (const [field, sub] of Object.entries(schema.properties)) {
    const value = record[field];
    if (sub.type === 'integer') {
      // null is no value: absent for an optional field, `is empty` for a required one (not 0 and `too small`).
      if (value === null) delete record[field];
      else if (typeof value === 'boolean' || (typeof value === 'string' && !digits.test(value))) record[field] = notAnInteger;
    } else if (sub.type === 'object') {
      markLooseIntegers(value, sub, depth + 1);
    }
  }
}

function routeSchema(request: FastifyRequest, part: 'body' | 'querystring'): SchemaNode | undefined {
  const schema = request.routeOptions.schema as Record<string, unknown> | undefined;
  return schema?.[part] as SchemaNode | undefined;
}

export function registerInputGuards(app: FastifyInstance): void {
  // After authentication (registered earlier) and before the schema coerces anything or a key is claimed.
  app.addHook('preValidation', async (request) => {
    // Pages (the checkout) answer their own mistakes with HTML pages.
    if (request.is404 || !(request.routeOptions.url ?? '').startsWith('/api')) return;
    const params = request.params as Record<string, unknown> | undefined;
    if (params !== undefined && Object.values(params).some((v) => typeof v === 'string' && !isStorableText(v))) {
      // No stored id can hold such text, so nothing answers to it.
      throw notFound('resource');
    }
    const bodySchema = routeSchema(request, 'body');
    const querySchema = routeSchema(request, 'querystring');
    const problems = { ...unstorableText(request.query, querySchema), ...unstorableText(request.body, bodySchema) };
    if (Object.keys(problems).length > 0) throw validationError(problems);
    markLooseIntegers(request.body, bodySchema);
    markLooseIntegers(request.query, querySchema);
  });
}

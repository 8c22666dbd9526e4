// Checks on the raw input that the schemas cannot make, so that a client's mistake is a validation error and never a
// database error (a 500), a silently altered value or a payment order for an amount nobody asked for.
//  - Text PostgreSQL cannot store: a NUL character (refused in TEXT and JSONB) or a lone UTF-16 surrogate (refused
//    in JSONB, silently replaced in TEXT). JSON allows both.
//  - Integers: supplement §1.2 accepts a JSON number or a string of digits. Ajv's type coercion also turns `true`
//    into 1 and reads "0x10", "1e3" or " 25 " as numbers; those are marked here so that the schema refuses them.
import { validationError } from '../../platform/errors.ts';

/** How deep the walk follows nested objects; deeper additional_parameters than any merchant sends are refused. */
const depthMax = 64;

export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

function walk(value: unknown, field: string, depth: number, problems: Record<string, string>): void {
  if (typeof value === 'string') {
    if (!isStorableText(value)) problems[field] = 'invalid';
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth >= depthMax) {
    problems[field] = 'invalid';
    return;
  }
  for (const [key, inner] of Object.entries(value)) {
    // A bad key makes the whole object unstorable; it is reported under the object's own name.
    if (!isStorableText(key)) problems[field] = 'invalid';
    else walk(inner, `${field}.${key}`, depth + 1, problems);
  }
}

/**
 * Throws the seed's validation error naming every one of `fields` (or a key inside it) that holds such text.
 * Only the named fields: other top-level fields are dropped unread by the schema.
 */
export function refuseUnstorableText(body: unknown, fields: readonly string[]): void {
  if (body === null || typeof body !== 'object') return;
  const problems: Record<string, string> = {};
  for (const field of fields) walk((body as Record<string, unknown>)[field], field, 1, problems);
  if (Object.keys(problems).length > 0) throw validationError(problems);
}

const digits = /^-?[0-9]+$/;

/** Stands in for a loose integer: no coercion turns an object into a number, so the schema reports `field: invalid`. */
const notAnInteger = Object.freeze({ notAnInteger: true });

/**
 * Replaces each of `fields` that holds a boolean or a string other than decimal digits with a value the integer
 * schema refuses, so the field is reported as `invalid` together with every other problem of the request.
 */
export function markLooseIntegers(source: unknown, fields: readonly string[]): void {
  if (source === null || typeof source !== 'object') return;
  const record = source as Record<string, unknown>;
  for (const field of fields) {
    const value = record[field];
    if (typeof value === 'boolean' || (typeof value === 'string' && !digits.test(value))) record[field] = notAnInteger;
  }
}

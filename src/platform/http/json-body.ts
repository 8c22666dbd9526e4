// The JSON body parser of every route. It refuses what Fastify's default parser refuses (`__proto__` keys and
// `constructor.prototype`, as secure-json-parse does with both actions set to 'error'), and it also notes how each
// number was written, which JSON.parse forgets: `1e3`, `1000` and `1000.0` all become 1000. The input guards use
// the note so that a number whose text the value does not keep (an exponent, trailing zeros) never fills a string
// or an integer field (decision 072). An integer in plain digits past 2^53 becomes its digit string instead, so
// that nothing rounds it (decision 755).
import type { FastifyRequest } from 'fastify';
import { errorCodes } from 'fastify';
import { ApiError, validationError } from '../errors/errors.ts';
import { limits } from '../../limits/index.ts';

/** Object -> (key -> the number's source text), only for numbers whose text differs from the value's own. */
const numberTexts = new WeakMap<object, Map<string, string>>();

/** How the number at `holder[key]` was written, when that text is not what `String(value)` gives back. */
export function numberTextOf(holder: object, key: string): string | undefined {
  return numberTexts.get(holder)?.get(key);
}

/** A text inside an untyped array or object of a body, or why there is none. */
export type LooseText =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly problem: 'is empty' | 'invalid' };

/**
 * `holder[key]` read as supplement §1.2 reads a string field, where no schema types it (the `[client_id, percent]`
 * pairs of a membership, an event's beneficiaries; decision 845): a number keeps its text as written, absent, null
 * or blank is `is empty`, and any other value (a boolean, an object) is `invalid`, never `is empty`.
 */
export function looseTextAt(holder: object, key: string): LooseText {
  const value = (holder as Readonly<Record<string, unknown>>)[key];
  if (value === undefined || value === null) return { ok: false, problem: 'is empty' };
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number'
        ? (numberTextOf(holder, key) ?? String(value))
        : null;
  if (text === null) return { ok: false, problem: 'invalid' };
  return text.trim() === '' ? { ok: false, problem: 'is empty' } : { ok: true, text };
}

/** An exponent in the number's source text (JSON writes one only after a digit). */
export function hasExponent(text: string): boolean {
  return /[eE]/.test(text);
}

/** Each request's body text as received, for the Cobro-Signature check (decision 140). */
const rawBodies = new WeakMap<FastifyRequest, string>();

/** The body text the JSON parser received ('' when no body was parsed). */
export function rawBodyOf(request: FastifyRequest): string {
  return rawBodies.get(request) ?? '';
}

export function keepRawBody(request: FastifyRequest, body: string): void {
  rawBodies.set(request, body);
}

class PoisonedJsonError extends Error {}

const plainDigits = /^-?[0-9]+$/;

interface SourceContext {
  readonly source?: string;
}

// Node 24's JSON.parse hands a reviver each primitive's source text (TC39 "JSON.parse source text access").
function reviver(this: unknown, key: string, value: unknown, context?: SourceContext): unknown {
  if (key === '__proto__') throw new PoisonedJsonError('__proto__ key');
  if (
    key === 'constructor' &&
    value !== null &&
    typeof value === 'object' &&
    Object.hasOwn(value, 'prototype')
  ) {
    throw new PoisonedJsonError('constructor.prototype key');
  }
  if (
    typeof value === 'number' &&
    context?.source !== undefined &&
    this !== null &&
    typeof this === 'object'
  ) {
    const text = context.source;
    // An integer written in plain digits past a double's exact ones (a PHP 64-bit id, json_encode writes it
    // exactly) keeps its digits as a string: a string field stores and signs them as written; an integer field
    // reads the digit string as it reads any other (too large, or invalid) (decision 755).
    if (!Number.isSafeInteger(value) && plainDigits.test(text)) return text;
    if (text !== String(value) || hasExponent(text)) {
      let texts = numberTexts.get(this);
      if (texts === undefined) {
        texts = new Map();
        numberTexts.set(this, texts);
      }
      texts.set(key, text);
    }
  }
  return value;
}

/**
 * A text the reviver must see (decision 250): one that could hold a poisoned key (`__proto__` or `constructor`,
 * written out or spelled with a `\u` escape), or a number whose text `String(value)` would not give back: a
 * fraction or an exponent (JSON writes both right after a digit), 16 digits or more (past a double's exact
 * integers), or `-0`. The test looks at the whole text, strings included, so it may send a harmless text to the
 * reviver, never the other way round. Any other text parses without one: a reviver call per value (with each
 * value's source text) was most of a small body's parse, and such a text has no number text to note.
 */
const needsReviverPattern = /[0-9][.eE]|-0|[0-9]{16}|\\u|__proto__|constructor/;

export function needsReviver(text: string): boolean {
  return needsReviverPattern.test(text);
}

/**
 * Every string token of a JSON text, and whether a `:` follows it (an object's key), or a bracket or a comma. Run
 * only on a text JSON.parse accepted: outside strings every `"` opens one, so the scan never loses step.
 */
const tokenPattern = /"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?|[{}[\],]/g;

/** A `"` then a `:`: the end of every key, and of nothing else outside strings. */
const keyEndPattern = /"\s*:/g;

/**
 * At least the number of keys the text writes (every key ends in `"` then `:`; a string's content may add more):
 * when it is no more than the parsed value holds, no key was written twice.
 */
function keysWrittenAtLeast(text: string): number {
  return text.match(keyEndPattern)?.length ?? 0;
}

/**
 * The keys the parsed value holds at every level, or null when its objects and arrays nest deeper than
 * limits.inputDepthMax (the top one is level 1). A loop over a stack of its own, not recursion: a text a few kB
 * long can nest thousands deep, past the call stack (decision 680).
 */
export function keysHeld(value: unknown): number | null {
  if (value === null || typeof value !== 'object') return 0;
  const pending: object[] = [value];
  const levels: number[] = [1];
  let n = 0;
  while (pending.length > 0) {
    const node = pending.pop()!;
    const level = levels.pop()!;
    if (level > limits.inputDepthMax) return null;
    const isArray = Array.isArray(node);
    for (const key in node) {
      if (!isArray) n += 1;
      const inner = (node as Record<string, unknown>)[key];
      if (inner !== null && typeof inner === 'object') {
        pending.push(inner);
        levels.push(level + 1);
      }
    }
  }
  return n;
}

interface Frame {
  /** The keys seen so far in an object; null for an array (or the top). */
  readonly keys: Set<string> | null;
  readonly path: string;
  /** The last key of an object, or the position of an array's current item. */
  member: string;
}

const joined = (path: string, member: string) => (path === '' ? member : `${path}.${member}`);

/**
 * The first key written twice in one object, as the path the input guards write (`amount`,
 * `additional_parameters.order_ext`, `merchant.1.x`). Slow path: run only when the quick count says it may exist.
 */
function duplicateKeyPath(text: string): string | null {
  const frames: Frame[] = [{ keys: null, path: '', member: '' }];
  tokenPattern.lastIndex = 0;
  for (let m = tokenPattern.exec(text); m !== null; m = tokenPattern.exec(text)) {
    const token = m[0];
    const top = frames[frames.length - 1]!;
    if (token === '{' || token === '[') {
      frames.push({
        keys: token === '{' ? new Set() : null,
        path: frames.length === 1 ? '' : joined(top.path, top.member),
        member: token === '[' ? '0' : '',
      });
    } else if (token === '}' || token === ']') {
      frames.pop();
    } else if (token === ',') {
      if (top.keys === null) top.member = String(Number(top.member) + 1);
    } else if (m[1] !== undefined && top.keys !== null) {
      const key = JSON.parse(token.slice(0, token.lastIndexOf('"') + 1)) as string;
      if (top.keys.has(key)) return joined(top.path, key);
      top.keys.add(key);
      top.member = key;
    }
  }
  return null;
}

/**
 * A key written twice in one object (`{"amount":1,"amount":9}`), which JSON.parse settles silently in favour of the
 * last: refused, naming the key (issue 31). The common case costs one regular-expression count over the text, set
 * against `held`, the keys the parsed value holds (keysHeld); the scan that tells keys from string contents and
 * names the key runs only when the count is higher (a duplicate, or a string holding `":`) (decision 440).
 */
export function duplicateKey(text: string, held: number): string | null {
  if (keysWrittenAtLeast(text) <= held) return null;
  return duplicateKeyPath(text);
}

/** A body nested deeper than any merchant's (decision 680): refused as the parser's other bad bodies are. */
function nestedTooDeep(): ApiError {
  return new ApiError('malformed_body', `body:nested deeper than ${limits.inputDepthMax} levels`, {
    errors: { body: 'too deep' },
  });
}

/** Parses a JSON text as Fastify's default parser does (same errors), noting the numbers' texts. */
export function parseJsonBody(
  _request: FastifyRequest,
  body: string,
  done: (error: Error | null, value?: unknown) => void,
): void {
  if (body.length === 0) {
    done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
    return;
  }
  // A byte order mark is not JSON but secure-json-parse tolerates one; so do we.
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  let parsed: unknown;
  try {
    parsed = needsReviver(text)
      ? JSON.parse(text, reviver as (key: string, value: unknown) => unknown)
      : JSON.parse(text);
  } catch {
    done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
    return;
  }
  const held = keysHeld(parsed);
  if (held === null) {
    done(nestedTooDeep(), undefined);
    return;
  }
  const duplicate = duplicateKey(text, held);
  if (duplicate !== null) {
    done(validationError({ [duplicate]: 'duplicate key' }), undefined);
    return;
  }
  done(null, parsed);
}

// The JSON body parser of every route. It refuses what Fastify's default parser refuses (`__proto__` keys and
// `constructor.prototype`, as secure-json-parse does with both actions set to 'error'), and it also notes how each
// number was written, which JSON.parse forgets: `1e3`, `1000` and `1000.0` all become 1000. The input guards use
// the note so that a number whose text the value does not keep (an exponent, more digits than a double holds,
// trailing zeros) never fills a string or an integer field (decision 072).
import type { FastifyRequest } from 'fastify';
import { errorCodes } from 'fastify';

/** Object -> (key -> the number's source text), only for numbers whose text differs from the value's own. */
const numberTexts = new WeakMap<object, Map<string, string>>();

/** How the number at `holder[key]` was written, when that text is not what `String(value)` gives back. */
export function numberTextOf(holder: object, key: string): string | undefined {
  return numberTexts.get(holder)?.get(key);
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

interface SourceContext {
  readonly source?: string;
}

// Node 24's JSON.parse hands a reviver each primitive's source text (TC39 "JSON.parse source text access").
function reviver(this: unknown, key: string, value: unknown, context?: SourceContext): unknown {
  if (key === '__proto__') throw new PoisonedJsonError('__proto__ key');
  if (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')) {
    throw new PoisonedJsonError('constructor.prototype key');
  }
  if (typeof value === 'number' && context?.source !== undefined && this !== null && typeof this === 'object') {
    const text = context.source;
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

/** Parses a JSON text as Fastify's default parser does (same errors), noting the numbers' texts. */
export function parseJsonBody(_request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void): void {
  if (body.length === 0) {
    done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
    return;
  }
  // A byte order mark is not JSON but secure-json-parse tolerates one; so do we.
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  let parsed: unknown;
  try {
    parsed = needsReviver(text) ? JSON.parse(text, reviver as (key: string, value: unknown) => unknown) : JSON.parse(text);
  } catch {
    done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
    return;
  }
  done(null, parsed);
}

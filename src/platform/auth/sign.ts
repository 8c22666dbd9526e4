// The `Sign` header (seed "Authentication", supplement §2.3): HMAC-SHA256 of the encoded path and the sorted
// top-level scalar parameters, keyed with the private token. Verification accepts the encodings real clients
// produce (PHP urlencode and JS URLSearchParams differ on `*`; a bare path or a trailing `&` when there are no
// parameters) and compares in constant time.
import crypto from 'node:crypto';

type Encoder = (text: string) => string;

/** PHP urlencode: only alphanumerics and `-_.` stay; space becomes `+`; hex is upper case. */
const phpUrlEncode: Encoder = (text) =>
  // A lone surrogate would make encodeURIComponent throw; as U+FFFD it just signs differently (and the input
  // guards refuse such text right after authentication).
  encodeURIComponent(text.toWellFormed())
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');

/** WHATWG form encoding (URLSearchParams): like PHP but `*` stays literal. */
const formUrlEncode: Encoder = (text) => phpUrlEncode(text).replace(/%2A/g, '*');

export type SignParams = Readonly<Record<string, unknown>>;

/**
 * A value's text as each reference script writes it (reference §12.4): the JS script drops null; the PHP script
 * keeps it as `key=` (gettype NULL is neither array nor object, urlencode(null) is ""), and writes booleans 1 and "".
 */
function scalarText(value: unknown, style: 'js' | 'php'): string | null {
  if (value === null) return style === 'php' ? '' : null;
  if (value === undefined) return null;
  if (typeof value === 'object') return null;
  if (typeof value === 'boolean') return style === 'js' ? String(value) : value ? '1' : '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint')
    return String(value);
  return null;
}

function serialize(params: SignParams, encode: Encoder, style: 'js' | 'php'): string {
  const entries: string[] = [];
  for (const key of Object.keys(params).sort()) {
    const text = scalarText(params[key], style);
    if (text !== null) entries.push(`${key}=${encode(text)}`);
  }
  return entries.join('&');
}

/**
 * A query string's parameters as the server reads them, for a client that signs one (`cobro sign`, the stack tests;
 * the /docs helper, sent to the browser as text, writes the same rule out: decision 770). Fastify's parser makes a
 * key given more than once an array, which `Sign` leaves out as every non-scalar (docs/authentication.md).
 * URLSearchParams decodes as that parser does (`+` is a space, a bad escape stays as written).
 */
export function queryParams(query: string): Record<string, unknown> {
  const search = new URLSearchParams(query.replace(/^\?/, ''));
  // No prototype, as the server's parser makes it: a key `__proto__` is a parameter like any other.
  const params = Object.create(null) as Record<string, unknown>;
  for (const key of new Set(search.keys())) {
    const all = search.getAll(key);
    params[key] = all.length === 1 ? all[0] : all;
  }
  return params;
}

/** The canonical string the reference documents (PHP encoding), as a client would build it. */
export function canonicalString(path: string, params: SignParams): string {
  return `${phpUrlEncode(path)}&${serialize(params, phpUrlEncode, 'js')}`;
}

export function computeSign(privateToken: string, path: string, params: SignParams): string {
  return crypto
    .createHmac('sha256', privateToken)
    .update(canonicalString(path, params))
    .digest('hex');
}

/** Whether any value would be written differently by PHP's style (booleans as 1 and empty, null as empty). */
function hasPhpOnlyText(params: SignParams): boolean {
  for (const key in params) {
    const value = params[key];
    if (typeof value === 'boolean' || value === null) return true;
  }
  return false;
}

/**
 * The texts a client may have signed, for each form of the path it may have signed (see signedPaths). Each
 * encoding is built only when it can differ from PHP's: the form encoding when a value holds a `*` (written `%2A`),
 * PHP's style when a value is a boolean or null.
 */
function candidates(paths: readonly string[], params: SignParams): Set<string> {
  const out = new Set<string>();
  const php = serialize(params, phpUrlEncode, 'js');
  const joins = [php];
  if (php.includes('%2A')) joins.push(serialize(params, formUrlEncode, 'js'));
  if (hasPhpOnlyText(params)) joins.push(serialize(params, phpUrlEncode, 'php'));
  for (const path of paths) {
    const encodedPath = phpUrlEncode(path);
    for (const joined of joins) {
      out.add(`${encodedPath}&${joined}`);
      if (joined === '') out.add(encodedPath);
    }
  }
  return out;
}

const hexSignPattern = /^[0-9a-fA-F]{64}$/;

/**
 * `key` is the private token, or the KeyObject made of it once per kept account (createHmac prepares a raw key
 * again on every call, several times the cost of the HMAC itself). `path` is one path or the forms of it a client
 * may have signed (signedPaths).
 */
export function verifySign(
  key: string | crypto.KeyObject,
  path: string | readonly string[],
  params: SignParams,
  sign: string,
): boolean {
  if (!hexSignPattern.test(sign)) return false;
  const given = Buffer.from(sign.toLowerCase(), 'hex');
  let matched = false;
  for (const text of candidates(typeof path === 'string' ? [path] : path, params)) {
    const expected = crypto.createHmac('sha256', key).update(text).digest();
    // Every candidate is compared, so timing does not reveal which form matched.
    if (crypto.timingSafeEqual(expected, given)) matched = true;
  }
  return matched;
}

/** The path as the client sent it, query removed, and its percent-decoded form. */
function signedPath(rawUrl: string): string {
  const pathOnly = rawUrl.split('?')[0] ?? '';
  try {
    return decodeURIComponent(pathOnly);
  } catch {
    return pathOnly;
  }
}

/**
 * The paths a client may have signed (supplement §2.3): the decoded path, and the path exactly as received when it
 * holds percent-escapes (`/api/suclient/a%40b.cl`, which a client that signs what it sends encodes once more).
 */
export function signedPaths(rawUrl: string): readonly string[] {
  const decoded = signedPath(rawUrl);
  const raw = rawUrl.split('?')[0] ?? '';
  return raw === decoded ? [decoded] : [decoded, raw];
}

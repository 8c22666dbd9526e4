// The `Sign` header as a client computes it (docs/authentication.md, supplement §2.3): HMAC-SHA256, keyed with the
// private token, of the PHP-urlencoded path and the sorted top-level scalar parameters. Web Crypto instead of
// node:crypto, so the same file runs in browsers and on Node 18+. The server verifies with its own code
// (src/platform/auth/sign.ts); test/client/client-sign.test.ts keeps the two in agreement.

export type SignParams = Readonly<Record<string, unknown>>;

/** The slice of Web Crypto's SubtleCrypto this file uses, typed here so no DOM or Node typings are required. */
interface HmacSubtle {
  importKey(
    format: 'raw',
    key: Uint8Array,
    algorithm: { name: 'HMAC'; hash: 'SHA-256' },
    extractable: false,
    usages: ['sign'],
  ): Promise<unknown>;
  sign(algorithm: 'HMAC', key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** PHP urlencode: only alphanumerics and `-_.` stay; space becomes `+`; hex is upper case. */
function phpUrlEncode(text: string): string {
  // A lone surrogate would make encodeURIComponent throw; as U+FFFD it signs as the server reads it
  // (String.prototype.toWellFormed, which Node 18 lacks).
  return encodeURIComponent(text.replace(loneSurrogate, '\uFFFD'))
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

function scalarText(value: unknown): string | null {
  if (
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    typeof value === 'boolean'
  )
    return String(value);
  // Objects, arrays, null and undefined are not part of the signature.
  return null;
}

/** The text that is signed: `urlencode(path)&k1=urlencode(v1)&k2=...`, keys sorted, scalars only. */
export function canonicalString(path: string, params: SignParams): string {
  const entries: string[] = [];
  for (const key of Object.keys(params).sort()) {
    const text = scalarText(params[key]);
    if (text !== null) entries.push(`${key}=${phpUrlEncode(text)}`);
  }
  return `${phpUrlEncode(path)}&${entries.join('&')}`;
}

let subtlePromise: Promise<HmacSubtle> | null = null;

async function loadSubtle(): Promise<HmacSubtle> {
  const global = (globalThis as { crypto?: { subtle?: unknown } }).crypto;
  if (global?.subtle !== undefined) return global.subtle as HmacSubtle;
  // Node 18 has Web Crypto only as node:crypto's `webcrypto` (the global arrived in Node 19). The specifier is a
  // variable so browser bundlers, whose platforms all have the global, do not try to bundle node:crypto.
  const specifier = 'node:crypto';
  const nodeCrypto = (await import(specifier)) as { webcrypto: { subtle: unknown } };
  return nodeCrypto.webcrypto.subtle as HmacSubtle;
}

async function hmacHex(privateToken: string, text: string): Promise<string> {
  subtlePromise ??= loadSubtle();
  const subtle = await subtlePromise;
  const encoder = new TextEncoder();
  const key = await subtle.importKey(
    'raw',
    encoder.encode(privateToken),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await subtle.sign('HMAC', key, encoder.encode(text)));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The `Sign` header value: lower-case hex HMAC-SHA256 of the canonical string. */
export async function computeSign(
  privateToken: string,
  path: string,
  params: SignParams,
): Promise<string> {
  return hmacHex(privateToken, canonicalString(path, params));
}

/**
 * The `Cobro-Signature` header value (docs/authentication.md): `t=<unix seconds>,v1=<hex HMAC-SHA256>` over the
 * timestamp, the method, the path as sent (no query) and the exact body text, one per line. It binds the whole body
 * (nested objects included) to one route and one moment, so it cannot be replayed onto another body.
 */
export async function computeCobroSignature(
  privateToken: string,
  timestampS: number,
  method: string,
  sentPath: string,
  body: string,
): Promise<string> {
  return `t=${timestampS},v1=${await hmacHex(privateToken, `${timestampS}\n${method.toUpperCase()}\n${sentPath}\n${body}`)}`;
}

// The `Cobro-Signature` header (decision 140): `t=<unix seconds>,v1=<hex HMAC-SHA256>`, keyed with the private
// token, over four lines: the timestamp, the method, the path as sent (no query) and the raw body. Unlike `Sign`,
// which drops nested objects and has no time, it binds the whole body to one route and one moment: a header seen
// once cannot be replayed onto another body, another resource id, or after the tolerance window.
import crypto from 'node:crypto';
import { limits } from '../../limits/index.ts';

export const cobroSignatureHeader = 'cobro-signature';

/** The text that is signed; the client builds the same (packages/client/src/sign.ts). */
function signedPayload(
  timestampS: number,
  method: string,
  rawPath: string,
  rawBody: string,
): string {
  return `${timestampS}\n${method.toUpperCase()}\n${rawPath}\n${rawBody}`;
}

export function computeCobroSignature(
  privateToken: string,
  timestampS: number,
  method: string,
  rawPath: string,
  rawBody: string,
): string {
  const mac = crypto
    .createHmac('sha256', privateToken)
    .update(signedPayload(timestampS, method, rawPath, rawBody), 'utf8')
    .digest('hex');
  return `t=${timestampS},v1=${mac}`;
}

interface ParsedHeader {
  readonly timestampS: number;
  readonly macs: readonly Buffer[];
}

const timestampPattern = /^\d{1,12}$/;
const macPattern = /^[0-9a-f]{64}$/;

/** `t=...,v1=...[,v1=...]`; other schemes are ignored (as Stripe's are), so a later scheme can be added beside v1. */
function parseHeader(header: string): ParsedHeader | null {
  if (header.length > limits.cobroSignatureLengthMax) return null;
  let timestampS: number | null = null;
  const macs: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return null;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') {
      if (timestampS !== null || !timestampPattern.test(value)) return null;
      timestampS = Number(value);
    } else if (name === 'v1') {
      if (!macPattern.test(value.toLowerCase())) return null;
      macs.push(Buffer.from(value.toLowerCase(), 'hex'));
    }
  }
  return timestampS === null || macs.length === 0 ? null : { timestampS, macs };
}

export type SignatureCheck = 'valid' | 'invalid' | 'expired';

export interface SignedRequest {
  readonly method: string;
  /** request.url up to the `?`, exactly as received (percent-encoding kept). */
  readonly rawPath: string;
  readonly rawBody: string;
}

/** Checks the header against the request and the clock; a valid MAC on a timestamp outside the window is `expired`. */
export function checkCobroSignature(
  privateToken: string,
  header: string,
  request: SignedRequest,
  now: Date,
): SignatureCheck {
  const parsed = parseHeader(header);
  if (parsed === null) return 'invalid';
  const expected = crypto
    .createHmac('sha256', privateToken)
    .update(
      signedPayload(parsed.timestampS, request.method, request.rawPath, request.rawBody),
      'utf8',
    )
    .digest();
  let matched = false;
  // Every v1 is compared, so timing does not reveal which one matched.
  for (const mac of parsed.macs) if (crypto.timingSafeEqual(expected, mac)) matched = true;
  if (!matched) return 'invalid';
  const skewMs = Math.abs(now.getTime() - parsed.timestampS * 1000);
  return skewMs <= limits.cobroSignatureToleranceMs ? 'valid' : 'expired';
}

/** The path of a raw request URL, without its query, as the client signed it. */
export function rawPathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

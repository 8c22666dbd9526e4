// Standard Webhooks signatures (supplement §5.2), so receivers can use any existing verifier library.
import crypto from 'node:crypto';
import { limits } from '../../limits/index.ts';
import type { WebhookSecrets } from '../auth/account-directory.ts';

const secretPrefix = 'whsec_';

/** The HMAC key of a `whsec_<base64>` secret: the decoded bytes, as the Standard Webhooks libraries use it. */
function webhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length < 16) throw new RangeError('webhook secret is too short');
  return key;
}

// An HMAC keyed with a KeyObject costs a tenth of one keyed with the bytes (Node prepares a raw key on every call),
// and every callback of an account signs with the same secret. Keyed by the secret itself, so a rotated secret
// gets its own entry; the map is emptied when full rather than grown.
const keys = new Map<string, crypto.KeyObject>();

function keyObjectOf(secret: string): crypto.KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= limits.webhookKeysCachedMax) keys.clear();
    keys.set(secret, (key = crypto.createSecretKey(webhookKey(secret))));
  }
  return key;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function webhookSignature(
  secret: string,
  messageId: string,
  timestampSec: number,
  body: string,
): string {
  const mac = crypto
    .createHmac('sha256', keyObjectOf(secret))
    .update(`${messageId}.${timestampSec}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The secrets an attempt at `at` is signed with: the current one first, then one a rotation retired while its grace
 * lasts (decision 1000), as Standard Webhooks lets a verifier accept any of several signatures.
 */
export function signingSecrets({ current, previous }: WebhookSecrets, at: Date): readonly string[] {
  return previous !== null && at < previous.until ? [current, previous.secret] : [current];
}

const userAgent = 'Cobro-Webhooks/1.0';

/**
 * Every header a delivery carries. The timestamp is the attempt's, so each retry is signed afresh; one signature a
 * secret, in the order given, separated by spaces.
 */
export function webhookHeaders(
  secrets: readonly string[],
  messageId: string,
  at: Date,
  body: string,
): Record<string, string> {
  if (secrets.length === 0) throw new RangeError('a callback is signed with at least one secret');
  const timestampSec = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': secrets
      .map((secret) => webhookSignature(secret, messageId, timestampSec, body))
      .join(' '),
  };
}

// Account credentials: public token (looked up by hash), private token (HMAC key for Sign), webhook secret.
import crypto from 'node:crypto';

export interface Credentials {
  readonly publicToken: string;
  readonly privateToken: string;
  readonly webhookSecret: string;
}

export function newCredentials(): Credentials {
  return {
    publicToken: crypto.randomBytes(16).toString('hex'),
    privateToken: crypto.randomBytes(16).toString('hex'),
    // Standard Webhooks secrets are `whsec_` + base64 of the key bytes.
    webhookSecret: `whsec_${crypto.randomBytes(24).toString('base64')}`,
  };
}

export function publicTokenHash(publicToken: string): string {
  // One-shot: no Hash object per request (every authenticated request hashes its token to find the account).
  return crypto.hash('sha256', publicToken, 'hex');
}

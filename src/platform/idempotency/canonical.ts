// A request body's fingerprint: SHA-256 of its JSON with object keys sorted, so key order and whitespace do not
// make two equal requests look different.
import crypto from 'node:crypto';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      out[key] = canonical((value as Record<string, unknown>)[key]);
    return out;
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value ?? null)) ?? 'null';
}

export function requestHash(value: unknown): string {
  return crypto.createHash('sha256').update(canonicalJson(value)).digest('hex');
}

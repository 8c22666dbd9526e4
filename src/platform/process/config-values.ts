// How one environment variable becomes a value of the configuration (config.ts): each reader pushes its mistake to
// `errors` and answers a value to go on with, so every mistake is reported at once.
import net from 'node:net';
import { configLimits } from '../../limits/index.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export function intInRange(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
  errors: string[],
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    errors.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    return fallback;
  }
  return Number(raw);
}

export function oneOf<T extends string>(
  env: Env,
  name: string,
  allowed: readonly T[],
  fallback: T,
  errors: string[],
): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const lower = raw.toLowerCase();
  const found = allowed.find((a) => a === lower);
  if (found === undefined) {
    errors.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
    return fallback;
  }
  return found;
}

export function parseSecretKey(raw: string | undefined, errors: string[]): Buffer | null {
  if (raw === undefined || raw === '') return null;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    errors.push('COBRO_SECRET_KEY must be 32 bytes as 64 hex characters or base64');
    return null;
  }
  return key;
}

/** A comma-separated list of bare origins; anything more (a path, credentials, a query) is a mistake to report. */
export function parseTrustedOrigins(
  raw: string | undefined,
  errors: string[],
): ReadonlySet<string> {
  const origins = new Set<string>();
  if (raw === undefined || raw.trim() === '') return origins;
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length > configLimits.callbackTrustedOriginsMax)
    errors.push(
      `CALLBACK_TRUSTED_ORIGINS names at most ${configLimits.callbackTrustedOriginsMax} origins, got ${entries.length}`,
    );
  for (const entry of entries.slice(0, configLimits.callbackTrustedOriginsMax)) {
    let url: URL | null = null;
    try {
      url = new URL(entry);
    } catch {
      url = null;
    }
    const bare =
      url !== null &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.username === '' &&
      url.password === '' &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '' &&
      !entry.endsWith('/')
        ? url
        : null;
    if (bare === null)
      errors.push(
        `CALLBACK_TRUSTED_ORIGINS entries must be origins like https://erp.internal:8443, got "${entry}"`,
      );
    else origins.add(bare.origin);
  }
  return origins;
}

/** `127.0.0.1` or `10.0.0.0/8, ::1`; unset or empty: no proxy is trusted. Named addresses only, never "all". */
export function parseTrustProxy(
  raw: string | undefined,
  errors: string[],
): readonly string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const { trustedProxiesMax } = configLimits;
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length > trustedProxiesMax)
    errors.push(`TRUST_PROXY names at most ${trustedProxiesMax} addresses, got ${entries.length}`);
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = net.isIP(address);
    const prefixOk =
      prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk)
      errors.push(
        `TRUST_PROXY entries must be IP addresses or networks like 10.0.0.0/8, got "${entry}"`,
      );
  }
  return entries;
}

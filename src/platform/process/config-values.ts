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

/**
 * Who may send callbacks to a trusted origin (decision 987): the accounts named after it, or every account when none
 * are (the form of decision 151), whose callbacks there then keep no excerpt of the answer.
 */
export type TrustedOriginAccounts = 'every account' | ReadonlySet<string>;

/** An account id as `cobro accounts create` makes them. */
const accountIdPattern = /^acc[0-9a-f]{17}$/;

/** The origin of a bare `scheme://host[:port]`, or null when the text is anything more or less. */
function bareOrigin(text: string): string | null {
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    url = null;
  }
  return url !== null &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '' &&
    !text.endsWith('/')
    ? url.origin
    : null;
}

/** `acc…|acc…` after an origin's `@`: the accounts, or null after pushing what is wrong with them. */
function trustedAccounts(
  entry: string,
  text: string,
  errors: string[],
): ReadonlySet<string> | null {
  const { callbackTrustedOriginAccountsMax } = configLimits;
  const ids = text.split('|').map((id) => id.trim());
  const wrong = ids.filter((id) => !accountIdPattern.test(id));
  if (wrong.length > 0) {
    errors.push(
      `CALLBACK_TRUSTED_ORIGINS entry "${entry}" names ${wrong.map((id) => `"${id}"`).join(', ')}: after "@" come account ids like acc0123456789abcdef0, separated by "|"`,
    );
    return null;
  }
  if (ids.length > callbackTrustedOriginAccountsMax) {
    errors.push(
      `CALLBACK_TRUSTED_ORIGINS entry "${entry}" names ${ids.length} accounts, at most ${callbackTrustedOriginAccountsMax}`,
    );
    return null;
  }
  return new Set(ids);
}

/**
 * A comma-separated list of bare origins, each open to every account (`https://erp.internal:8443`) or to the
 * accounts it names (`https://erp.internal:8443@acc…|acc…`, decision 987); anything more (a path, credentials, a
 * query) or an origin named twice with different accounts is a mistake to report.
 */
export function parseTrustedOrigins(
  raw: string | undefined,
  errors: string[],
): ReadonlyMap<string, TrustedOriginAccounts> {
  const origins = new Map<string, TrustedOriginAccounts>();
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
    // An empty user part (`https://@host`, `https://:@host`) is dropped, as `new URL` dropped it before decision 987
    // (decision 982). Then a bare origin holds no "@" (credentials are refused), so the first one starts the accounts.
    const text = entry.replace(/^(https?:\/\/):?@/i, '$1');
    const at = text.indexOf('@');
    const origin = bareOrigin(at === -1 ? text : text.slice(0, at).trim());
    if (origin === null) {
      errors.push(
        `CALLBACK_TRUSTED_ORIGINS entries must be origins like https://erp.internal:8443 (or https://erp.internal:8443@acc0123456789abcdef0 for one account), got "${entry}"`,
      );
      continue;
    }
    const accounts =
      at === -1 ? 'every account' : trustedAccounts(entry, text.slice(at + 1), errors);
    if (accounts === null) continue;
    const before = origins.get(origin);
    if (before !== undefined && !sameAccounts(before, accounts)) {
      errors.push(
        `CALLBACK_TRUSTED_ORIGINS names ${origin} twice with different accounts: name it once, its accounts after one "@"`,
      );
      continue;
    }
    origins.set(origin, accounts);
  }
  return origins;
}

function sameAccounts(a: TrustedOriginAccounts, b: TrustedOriginAccounts): boolean {
  if (a === 'every account' || b === 'every account') return a === b;
  return a.size === b.size && [...a].every((id) => b.has(id));
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

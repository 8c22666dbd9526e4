// Configuration from environment variables, validated once at start. A bad value is a clear error, never a guess.
import net from 'node:net';
import path from 'node:path';
import { isValidTimeZone } from '../time/time-format.ts';
import { configLimits, httpLimits, limits } from '../../limits/index.ts';

const modes = ['sandbox', 'production'] as const;
export type Mode = (typeof modes)[number];
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];
/** `auto`: human-readable lines (pino-pretty) when stdout is a terminal, JSON lines otherwise. */
const logFormats = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof logFormats)[number];

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly mode: Mode;
  /** 32-byte key (hex or base64 in the environment); null means "use or create the sandbox key file". */
  readonly secretKey: Buffer | null;
  readonly timeZone: string;
  readonly publicBaseUrl: string;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly settlementDelayDays: number;
  readonly workersEnabled: boolean;
  /** Bearer token for /metrics in production; null there means /metrics answers 404 (sandbox leaves it open). */
  readonly metricsToken: string | null;
  /** Origins (scheme://host:port) that production callbacks may reach on loopback or private addresses (decision 151). */
  readonly callbackTrustedOrigins: ReadonlySet<string>;
  /**
   * TRUST_PROXY: whose `X-Forwarded-For`/`-Proto`/`-Host` to believe (Fastify's `trustProxy`): the reverse proxies'
   * addresses or networks; null believes none (the socket's address is the client).
   */
  readonly trustProxy: readonly string[] | null;
  // --- HTTP timeouts and rate limit (decision 072) ---
  readonly httpTimeouts: HttpTimeouts;
  /** Requests per minute per public token (per IP without one) in this process; null when turned off. */
  readonly rateLimitPerMinute: number | null;
  /** How long a command's Idempotency-Key claim holds against retries (decision 071); IDEMPOTENCY_LEASE_MS. */
  readonly idempotencyLeaseMs: number;
  /**
   * Named prepared statements on PostgreSQL (decision 230); DB_PREPARED_STATEMENTS=off for a pooler that
   * hands one session's statements to another (PgBouncer in transaction mode before 1.21).
   */
  readonly dbPreparedStatements: boolean;
  /** `cobro serve` or `cobro worker` not serving this long after it starts ends itself (decision 410); READY_TIMEOUT_MS. */
  readonly readyTimeoutMs: number;
}

export interface HttpTimeouts {
  readonly requestMs: number;
  readonly headersMs: number;
  readonly connectionMs: number;
  readonly keepAliveMs: number;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: string[] };

type Env = Readonly<Record<string, string | undefined>>;

function intInRange(
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

function oneOf<T extends string>(
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

function parseSecretKey(raw: string | undefined, errors: string[]): Buffer | null {
  if (raw === undefined || raw === '') return null;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    errors.push('COBRO_SECRET_KEY must be 32 bytes as 64 hex characters or base64');
    return null;
  }
  return key;
}

export function loadConfig(env: Env = process.env): ConfigResult {
  const errors: string[] = [];
  const port = intInRange(
    env,
    'PORT',
    configLimits.portDefault,
    configLimits.portMin,
    configLimits.portMax,
    errors,
  );
  const host = env.HOST !== undefined && env.HOST !== '' ? env.HOST : '127.0.0.1';
  const dataDir = path.resolve(
    env.DATA_DIR !== undefined && env.DATA_DIR !== '' ? env.DATA_DIR : './data',
  );
  const databaseUrl =
    env.DATABASE_URL !== undefined && env.DATABASE_URL !== '' ? env.DATABASE_URL : null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    errors.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const mode = oneOf(env, 'COBRO_MODE', modes, 'sandbox', errors);
  const secretKey = parseSecretKey(env.COBRO_SECRET_KEY, errors);
  // Set but empty counts as missing: production never falls back to a key file beside the data.
  if (mode === 'production' && (env.COBRO_SECRET_KEY ?? '') === '') {
    errors.push(
      'COBRO_SECRET_KEY is required in production mode (32 bytes as 64 hex characters: openssl rand -hex 32)',
    );
  }
  const timeZone =
    env.TIMEZONE !== undefined && env.TIMEZONE !== '' ? env.TIMEZONE : 'America/Santiago';
  if (!isValidTimeZone(timeZone))
    errors.push(`TIMEZONE "${timeZone}" is not a known IANA time zone`);
  const logLevel = oneOf(env, 'LOG_LEVEL', logLevels, 'info', errors);
  const logFormat = oneOf(env, 'LOG_FORMAT', logFormats, 'auto', errors);
  const settlementDelayDays = intInRange(
    env,
    'SETTLEMENT_DELAY_DAYS',
    configLimits.settlementDelayDaysDefault,
    configLimits.settlementDelayDaysMin,
    configLimits.settlementDelayDaysMax,
    errors,
  );
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  let publicBaseUrl =
    env.PUBLIC_BASE_URL ??
    `http://${displayHost.includes(':') ? `[${displayHost}]` : displayHost}:${port}`;
  try {
    const u = new URL(publicBaseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    publicBaseUrl = publicBaseUrl.replace(/\/+$/, '');
  } catch {
    errors.push(`PUBLIC_BASE_URL must be an http(s) URL, got "${publicBaseUrl}"`);
  }
  // Production over plain http would send the dashboard's session cookie and every checkout page in clear: refused,
  // unless the operator names the risk (local testing behind a TLS-terminating proxy; decision 440).
  if (
    mode === 'production' &&
    /^http:/i.test(publicBaseUrl) &&
    env.COBRO_ALLOW_INSECURE_PUBLIC_URL !== '1'
  ) {
    errors.push(
      `PUBLIC_BASE_URL must be https in production mode, got "${publicBaseUrl}" (set COBRO_ALLOW_INSECURE_PUBLIC_URL=1 only for local testing behind a TLS-terminating proxy)`,
    );
  }
  const workersEnabled = env.COBRO_WORKERS !== '0';
  const metricsToken =
    env.METRICS_TOKEN !== undefined && env.METRICS_TOKEN !== '' ? env.METRICS_TOKEN : null;
  const { metricsTokenLengthMin: tokenMin, metricsTokenLengthMax: tokenMax } = configLimits;
  if (metricsToken !== null && !new RegExp(`^\\S{${tokenMin},${tokenMax}}$`).test(metricsToken))
    errors.push(`METRICS_TOKEN must be ${tokenMin} to ${tokenMax} characters without spaces`);
  const callbackTrustedOrigins = parseTrustedOrigins(env.CALLBACK_TRUSTED_ORIGINS, errors);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY, errors);
  const http = httpSettings(env, errors);
  const dbPreparedStatements =
    oneOf(env, 'DB_PREPARED_STATEMENTS', ['on', 'off'] as const, 'on', errors) === 'on';
  const readyTimeoutMs = intInRange(
    env,
    'READY_TIMEOUT_MS',
    configLimits.readyTimeoutMsDefault,
    configLimits.readyTimeoutMsMin,
    configLimits.readyTimeoutMsMax,
    errors,
  );
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    config: {
      port,
      host,
      dataDir,
      databaseUrl,
      mode,
      secretKey,
      timeZone,
      publicBaseUrl,
      logLevel,
      logFormat,
      settlementDelayDays,
      workersEnabled,
      metricsToken,
      callbackTrustedOrigins,
      trustProxy,
      dbPreparedStatements,
      readyTimeoutMs,
      ...http,
    },
  };
}

/** A comma-separated list of bare origins; anything more (a path, credentials, a query) is a mistake to report. */
function parseTrustedOrigins(raw: string | undefined, errors: string[]): ReadonlySet<string> {
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
function parseTrustProxy(raw: string | undefined, errors: string[]): readonly string[] | null {
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

// --- HTTP timeouts and rate limit (decision 072) ---
function httpSettings(
  env: Env,
  errors: string[],
): Pick<Config, 'httpTimeouts' | 'rateLimitPerMinute' | 'idempotencyLeaseMs'> {
  const { timeoutMsMin: min, timeoutMsMax: max } = httpLimits;
  const requestMs = intInRange(
    env,
    'HTTP_REQUEST_TIMEOUT_MS',
    httpLimits.requestTimeoutMsDefault,
    min,
    max,
    errors,
  );
  // Unset, the headers' timeout follows a shorter request timeout down, since Node refuses one longer than it.
  const headersMs = intInRange(
    env,
    'HTTP_HEADERS_TIMEOUT_MS',
    Math.min(httpLimits.headersTimeoutMsDefault, requestMs),
    min,
    max,
    errors,
  );
  if (headersMs > requestMs)
    errors.push(
      `HTTP_HEADERS_TIMEOUT_MS (${headersMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestMs})`,
    );
  const connectionMs = intInRange(
    env,
    'HTTP_CONNECTION_TIMEOUT_MS',
    httpLimits.connectionTimeoutMsDefault,
    min,
    max,
    errors,
  );
  const keepAliveMs = intInRange(
    env,
    'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    httpLimits.keepAliveTimeoutMsDefault,
    min,
    max,
    errors,
  );
  const perMinute = intInRange(
    env,
    'RATE_LIMIT_PER_MINUTE',
    httpLimits.rateLimitPerMinuteDefault,
    0,
    httpLimits.rateLimitPerMinuteMax,
    errors,
  );
  const idempotencyLeaseMs = intInRange(
    env,
    'IDEMPOTENCY_LEASE_MS',
    limits.idempotencyLeaseMs,
    limits.idempotencyLeaseMsMin,
    limits.idempotencyTtlMs - 1,
    errors,
  );
  return {
    httpTimeouts: { requestMs, headersMs, connectionMs, keepAliveMs },
    rateLimitPerMinute: perMinute === 0 ? null : perMinute,
    idempotencyLeaseMs,
  };
}

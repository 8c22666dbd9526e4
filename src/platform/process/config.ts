// Configuration from environment variables, validated once at start. A bad value is a clear error, never a guess.
import path from 'node:path';
import {
  intInRange,
  oneOf,
  parseSecretKey,
  parseTrustedOrigins,
  parseTrustProxy,
  type Env,
  type TrustedOriginAccounts,
} from './config-values.ts';
import { isValidTimeZone } from '../time/time-format.ts';
import { limitSettings } from './config-limits.ts';
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
  /**
   * Origins (scheme://host:port) that production callbacks may reach on loopback or private addresses (decision 151),
   * each with the accounts whose callbacks may (decision 987).
   */
  readonly callbackTrustedOrigins: ReadonlyMap<string, TrustedOriginAccounts>;
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
  /** Dashboard passwords' scrypt cost as log2 of N (decision 541): 15; tests lower it. PASSWORD_HASH_COST. */
  readonly passwordHashCost: number;
  /**
   * A checkout or mall attempt's hold on its sale, on the service clock (decision 760); ATTEMPT_LEASE_MS. It also
   * shortens a refund dispatch's and a billing attempt's lease when it is shorter than theirs (decision 785).
   */
  readonly attemptLeaseMs: number;
  /** Days a delivered or failed callback is kept after its last attempt (decision 994); null keeps them all. */
  readonly callbackRetentionDays: number | null;
}

export interface HttpTimeouts {
  readonly requestMs: number;
  readonly headersMs: number;
  readonly connectionMs: number;
  readonly keepAliveMs: number;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: string[] };

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
  const { dataDir, databaseUrl } = storageSettings(env, errors);
  const mode = oneOf(env, 'COBRO_MODE', modes, 'sandbox', errors);
  const secretKey = secretKeyOf(env, mode, errors);
  const timeZone = timeZoneOf(env, errors);
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
  const publicBaseUrl = publicBaseUrlOf(env, { host, port, mode }, errors);
  const workersEnabled = env.COBRO_WORKERS !== '0';
  const metricsToken = metricsTokenOf(env, errors);
  const callbackTrustedOrigins = parseTrustedOrigins(env.CALLBACK_TRUSTED_ORIGINS, errors);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY, errors);
  const http = httpSettings(env, errors);
  if (mode === 'production' && http.idempotencyLeaseMs < limits.idempotencyLeaseMsProductionMin)
    errors.push(
      `IDEMPOTENCY_LEASE_MS must be at least ${limits.idempotencyLeaseMsProductionMin} in production mode (a stored-card charge waits on the acquirer within it), got ${http.idempotencyLeaseMs}`,
    );
  const limitsSet = limitSettings(env, errors);
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
      ...limitsSet,
      ...http,
    },
  };
}

/** DATA_DIR (PGlite's files) and DATABASE_URL (PostgreSQL instead, when set). */
function storageSettings(
  env: Env,
  errors: string[],
): { dataDir: string; databaseUrl: string | null } {
  const dataDir = path.resolve(
    env.DATA_DIR !== undefined && env.DATA_DIR !== '' ? env.DATA_DIR : './data',
  );
  const databaseUrl =
    env.DATABASE_URL !== undefined && env.DATABASE_URL !== '' ? env.DATABASE_URL : null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    errors.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  return { dataDir, databaseUrl };
}

/** COBRO_SECRET_KEY: optional in the sandbox, required in production. */
function secretKeyOf(env: Env, mode: Mode, errors: string[]): Buffer | null {
  const secretKey = parseSecretKey(env.COBRO_SECRET_KEY, errors);
  // Set but empty counts as missing: production never falls back to a key file beside the data.
  if (mode === 'production' && (env.COBRO_SECRET_KEY ?? '') === '') {
    errors.push(
      'COBRO_SECRET_KEY is required in production mode (32 bytes as 64 hex characters: openssl rand -hex 32)',
    );
  }
  return secretKey;
}

/** TIMEZONE: an IANA zone, America/Santiago by default. */
function timeZoneOf(env: Env, errors: string[]): string {
  const timeZone =
    env.TIMEZONE !== undefined && env.TIMEZONE !== '' ? env.TIMEZONE : 'America/Santiago';
  if (!isValidTimeZone(timeZone))
    errors.push(`TIMEZONE "${timeZone}" is not a known IANA time zone`);
  return timeZone;
}

/** PUBLIC_BASE_URL: an http(s) URL without a trailing slash, by default the listening address; https in production. */
function publicBaseUrlOf(
  env: Env,
  { host, port, mode }: { host: string; port: number; mode: Mode },
  errors: string[],
): string {
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
  return publicBaseUrl;
}

/** METRICS_TOKEN: the bearer token /metrics asks for, if any. */
function metricsTokenOf(env: Env, errors: string[]): string | null {
  const metricsToken =
    env.METRICS_TOKEN !== undefined && env.METRICS_TOKEN !== '' ? env.METRICS_TOKEN : null;
  const { metricsTokenLengthMin: tokenMin, metricsTokenLengthMax: tokenMax } = configLimits;
  if (metricsToken !== null && !new RegExp(`^\\S{${tokenMin},${tokenMax}}$`).test(metricsToken))
    errors.push(`METRICS_TOKEN must be ${tokenMin} to ${tokenMax} characters without spaces`);
  return metricsToken;
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

// Per-token rate limit (decision 072) with @fastify/rate-limit: RATE_LIMIT_PER_MINUTE requests a minute per
// public token, and per client IP for requests without a known token. Answers 429 in the seed's envelope with
// `Retry-After`. Counters live in this process's memory: several processes on one PostgreSQL each allow the limit.
//
// The limit runs first thing (onRequest), before the body is read or a token is looked up, so a flood costs
// neither. At that point the token is not yet checked; counting per token anyway would give every made-up token a
// fresh allowance. So a token counts per token (per account: an account has one public token) only once it has
// authenticated a request in this process; until then, and for unknown or missing tokens, the client's IP counts.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import { httpLimits, limits } from '../../limits/index.ts';
import { ApiError } from '../errors/errors.ts';
import './fastify-types.ts';

/** The same shape the auth plugin accepts; anything else is no token. */
const bearerPattern = new RegExp(`^Bearer\\s+(\\S{1,${limits.bearerTokenLengthMax}})\\s*$`, 'i');

/** Probes must see the process as it is, even when a proxy's one address is over its limit. */
const unlimitedRoutes: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/** A Map that forgets its least recently set entries beyond `sizeMax` (Map keeps insertion order). */
class BoundedMap<V> {
  readonly #entries = new Map<string, V>();
  readonly sizeMax: number;
  constructor(sizeMax: number) {
    this.sizeMax = sizeMax;
  }
  get(key: string): V | undefined {
    return this.#entries.get(key);
  }
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.sizeMax) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }
  delete(key: string): void {
    this.#entries.delete(key);
  }
}

/** Tokens are kept as digests, so the process's memory holds no credential longer than a request. */
function tokenDigest(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  const token = header === undefined ? undefined : bearerPattern.exec(header)?.[1];
  return token === undefined ? null : crypto.createHash('sha256').update(token).digest('base64url');
}

function retryAfterSeconds(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}

/** The 429 of a limit of `max` a minute, with the seconds until it lets the client in again. */
export function rateLimited(max: number, ttlMs: number): ApiError {
  const seconds = retryAfterSeconds(ttlMs);
  return new ApiError(
    'rate_limited',
    `too many requests: more than ${max} a minute; retry after ${seconds} s`,
    {},
    { 'retry-after': String(seconds) },
  );
}

/** Registers the limit on every route added after it; `perMinute` null registers nothing. */
export async function registerRateLimit(
  app: FastifyInstance,
  perMinute: number | null,
): Promise<void> {
  if (perMinute === null) return;
  // Token digest -> account id, for tokens that authenticated a request here.
  const knownTokens = new BoundedMap<string>(httpLimits.rateLimitKnownTokensMax);
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: perMinute,
    timeWindow: httpLimits.rateLimitWindowMs,
    cache: httpLimits.rateLimitKeysMax,
    allowList: (request) => unlimitedRoutes.has(request.routeOptions.url ?? ''),
    keyGenerator: (request) => {
      const digest = tokenDigest(request);
      const accountId = digest === null ? undefined : knownTokens.get(digest);
      // IPv6 clients count per /64, the block one host usually holds.
      return accountId !== undefined ? `account:${accountId}` : `ip:${normalizeIP(request.ip)}`;
    },
    // Answers under the limit stay as they were; a 429 says where the client stands.
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    errorResponseBuilder: (_request, context) => rateLimited(context.max, context.ttl),
  });
  app.addHook('onResponse', async (request, reply) => {
    const digest = tokenDigest(request);
    if (digest === null) return;
    if (request.account !== null) knownTokens.set(digest, request.account.id);
    // A rotated token stops counting as its account.
    else if (reply.statusCode === 401) knownTokens.delete(digest);
  });
}

// The sign-in forms' limit shared by every process on the database (decision 950). The root's rate limit counts
// in each process's memory (@fastify/rate-limit), which is right for the API's allowance (documented per process)
// but not for the bound on guessing a password or an enrolled factor's code (decision 835): behind a load balancer,
// N processes allowed N times it. Each post that the process's own count lets through is counted again here, in
// one statement on the database, and refused past the limit. The in-memory count stays in front: a flood costs the
// database at most the limit's writes per address, process and minute.
import { sql } from 'kysely';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { normalizeIP } from '@fastify/rate-limit';
import type { AppContext } from '../platform/context.ts';
import { sha256Hex } from '../platform/auth/secrets.ts';
import { dashboardLimits, httpLimits } from '../limits/index.ts';
import { rateLimited } from '../platform/http/rate-limit.ts';
import { credentialTag, deviceCredentialsOf, deviceOf } from './device-cookie.ts';

/**
 * The sign-in forms' limit (the sign-in, the invitation's and the second factor's): fewer tries a minute than the
 * API allows, per client address where the root's rate limit is on, an IPv6 client per /64 as the API counts it (the
 * block one host usually holds, so a new address of it is no new try; decision 640).
 */
export const signInLimit = {
  max: dashboardLimits.signInsPerMinute,
  keyGenerator: (request: FastifyRequest) => `dashboard-sign-in:${normalizeIP(request.ip)}`,
};

interface SignInTriesTable {
  key: string;
  window_started_at: Date;
  tries: number;
}

declare module '../platform/db/types.ts' {
  interface Database {
    sign_in_tries: SignInTriesTable;
  }
}

/**
 * Counts one post of `key` in the window it falls in (a new one when the last ended), dropping other addresses'
 * ended windows, and answers the count and the milliseconds until the window ends. The window runs on the
 * database's clock, the one clock every process sharing the count reads alike; like the in-memory limit it
 * counts real time, not the service clock a test holds still.
 */
async function countTry(
  ctx: AppContext,
  key: string,
): Promise<{ readonly tries: number; readonly leftMs: number }> {
  const windowMs = httpLimits.rateLimitWindowMs;
  const window = sql`make_interval(secs => ${windowMs / 1000})`;
  const { rows } = await sql<{ tries: number; left_ms: number }>`
    WITH ended AS (DELETE FROM sign_in_tries WHERE window_started_at <= now() - ${window} AND key <> ${key})
    INSERT INTO sign_in_tries AS t (key, window_started_at, tries) VALUES (${key}, now(), 1)
    ON CONFLICT (key) DO UPDATE SET
      tries = CASE WHEN t.window_started_at <= now() - ${window} THEN 1 ELSE t.tries + 1 END,
      window_started_at = CASE WHEN t.window_started_at <= now() - ${window} THEN now() ELSE t.window_started_at END
    RETURNING t.tries,
      (EXTRACT(EPOCH FROM (t.window_started_at + ${window} - now())) * 1000)::integer AS left_ms`.execute(
    ctx.db,
  );
  const row = rows[0]!;
  return { tries: row.tries, leftMs: row.left_ms };
}

/** Refuses a sign-in form's post past the limit counted by every process (only where the rate limit is on). */
export function limitSignInTriesAcrossProcesses(app: FastifyInstance, ctx: AppContext): void {
  if (ctx.config.rateLimitPerMinute === null) return;
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.config.rateLimit !== signInLimit) return;
    // Per form and address, as the in-memory count keeps them (a store of its own per route).
    const key = `${request.routeOptions.url ?? ''} ${signInLimit.keyGenerator(request)}`;
    const counted = await countTry(ctx, key);
    if (counted.tries > dashboardLimits.signInsPerMinute)
      throw rateLimited(dashboardLimits.signInsPerMinute, counted.leftMs);
  });
}

/**
 * The request's device cookie when it names the user with `email` (decision 1185), else null: a cookie of another
 * user, of a user since removed, or given before the user's credentials last changed (a reset, a second factor
 * added: decision 1195) counts as none. Looked up by the signed id, so no typed e-mail reaches the query.
 */
async function deviceFor(ctx: AppContext, request: FastifyRequest, email: string) {
  const device = deviceOf(ctx, request);
  if (device === null) return null;
  const user = await deviceCredentialsOf(ctx, device.userId);
  return user !== undefined &&
    user.email === email.trim().toLowerCase() &&
    credentialTag(ctx, user) === device.tag
    ? device
    : null;
}

/**
 * Counts a sign-in, or a second factor's code, that names the user with `email`, from whatever address, and refuses
 * it past `signInsPerUserPerMinute` (decision 1090): the per-address limit alone let many addresses guess one user's
 * password, or its code once the password leaked, each at the full rate. Every e-mail is counted, one no user has
 * alike, so the limit tells no user apart; the key is the e-mail's hash, not the e-mail. A post from a browser with
 * the user's device cookie is counted per device instead, against `signInsPerDevicePerMinute` (decision 1185): others'
 * guesses do not keep the user out, and the cookie is no faster channel. Off with the rate limit.
 */
export async function countUserSignIn(
  ctx: AppContext,
  request: FastifyRequest,
  email: string,
): Promise<void> {
  if (ctx.config.rateLimitPerMinute === null) return;
  const device = await deviceFor(ctx, request, email);
  const [key, max] =
    device === null
      ? [
          `user ${sha256Hex(`sign-in-user:${email.trim().toLowerCase()}`)}`,
          dashboardLimits.signInsPerUserPerMinute,
        ]
      : [
          `device ${sha256Hex(`sign-in-device:${device.nonce}`)}`,
          dashboardLimits.signInsPerDevicePerMinute,
        ];
  const counted = await countTry(ctx, key);
  if (counted.tries > max) throw rateLimited(max, counted.leftMs);
}

// The device cookie (decision 1185, OWASP's "device cookies"): a browser where a user signed in keeps a cookie naming
// that user, so someone else's guesses at the user's e-mail, which spend the per-user limit (decision 1090), do not
// keep the user out. It is self-verifying, no table: the user's id, when it was given and a random nonce, signed by
// @fastify/cookie with the dashboard's cookie key (an HMAC-SHA256). It proves only that this browser signed in as the
// user once; the password (and code) are still checked, and its sign-ins are counted per device instead. It also
// carries a tag of the credentials it was given under (decision 1195): a reset or a second factor added since ends it,
// else whoever once knew the password kept one cookie per sign-in, each 10 guesses a minute at the new credentials.
import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { dashboardLimits } from '../limits/index.ts';

/** The device cookie's name: signed, HttpOnly, SameSite=Strict, Path=/dashboard (docs/dashboard.md). */
export const deviceCookie = 'cobro_device';

/** A device cookie whose signature holds and whose lifetime has not run out. */
export interface Device {
  readonly userId: string;
  /** Random per cookie given: what the per-device count is keyed on. */
  readonly nonce: string;
  /** The credentials' tag when it was given (`credentialTag`). */
  readonly tag: string;
}

/** The user's credentials as stored: a new password (a reset) or an enrolled factor changes them. */
export interface DeviceCredentials {
  readonly password_hash: string | null;
  readonly totp_secret_enc: string | null;
}

/**
 * A tag of the user's credentials now, keyed with a secret of its own (the cookie is signed, not sealed: the browser
 * reads its value, so no hash of the password hash goes in it unkeyed).
 */
export function credentialTag(ctx: AppContext, user: DeviceCredentials): string {
  return crypto
    .createHmac('sha256', ctx.secrets.derive('dashboard-device-credentials'))
    .update(`${user.password_hash ?? ''}\n${user.totp_secret_enc ?? ''}`)
    .digest('base64url');
}

/** The user's credentials by id, or undefined once the user is removed. */
export function deviceCredentialsOf(ctx: AppContext, userId: string) {
  return ctx.db
    .selectFrom('dashboard_users')
    .select(['email', 'password_hash', 'totp_secret_enc'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** Gives the browser a new device cookie for `userId`, after a sign-in whose password (and code) held. */
export async function setDeviceCookie(
  ctx: AppContext,
  reply: FastifyReply,
  userId: string,
  secure: boolean,
): Promise<void> {
  const user = await deviceCredentialsOf(ctx, userId);
  if (user === undefined) return;
  const nonce = crypto.randomBytes(16).toString('base64url');
  const tag = credentialTag(ctx, user);
  reply.setCookie(deviceCookie, `${userId}.${ctx.clock.now().getTime()}.${nonce}.${tag}`, {
    path: '/dashboard',
    httpOnly: true,
    sameSite: 'strict',
    secure,
    signed: true,
    maxAge: Math.floor(dashboardLimits.deviceCookieMs / 1000),
  });
}

/**
 * The device the request's cookie names, or null: none, a signature that does not hold (forged or altered), or
 * older than `deviceCookieMs` (the browser's Max-Age is not trusted: the time given is in the signed value).
 */
export function deviceOf(ctx: AppContext, request: FastifyRequest): Device | null {
  const signed = request.cookies[deviceCookie];
  if (signed === undefined || signed === '') return null;
  const unsigned = request.unsignCookie(signed);
  if (!unsigned.valid || unsigned.value === null) return null;
  const [userId, givenMs, nonce, tag, ...rest] = unsigned.value.split('.');
  if (userId === undefined || nonce === undefined || tag === undefined || rest.length > 0)
    return null;
  const ageMs = ctx.clock.now().getTime() - Number(givenMs);
  if (!Number.isSafeInteger(Number(givenMs)) || ageMs < 0 || ageMs > dashboardLimits.deviceCookieMs)
    return null;
  return { userId, nonce, tag };
}

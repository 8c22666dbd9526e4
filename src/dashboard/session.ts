// Dashboard sessions: a merchant signs in with the account's public and private tokens and gets a random session
// id, which the browser keeps in a signed, HttpOnly, SameSite=Strict cookie and the database keeps only hashed.
// A session ends when unused for an hour or 12 hours after sign-in (decision 1090), when the merchant signs out, or
// when the account's tokens are rotated. A named user (decision 541) signs in with e-mail and password instead; the
// session then carries the user's role.
import crypto from 'node:crypto';
import type { AppContext } from '../platform/context.ts';
import type { Timestamp } from '../platform/db/types.ts';
import { publicTokenHash } from '../platform/auth/tokens.ts';
import { sha256Hex } from '../platform/auth/secrets.ts';
import { dashboardLimits } from '../limits/index.ts';
import type { DashboardRole, SignedInUser } from './users.ts';

interface DashboardSessionTable {
  id_hash: string;
  account_id: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  user_id: string | null;
}

declare module '../platform/db/types.ts' {
  interface Database {
    dashboard_sessions: DashboardSessionTable;
  }
}

/** The session cookie's name: signed, HttpOnly, SameSite=Strict, Path=/dashboard (docs/dashboard.md). */
export const sessionCookie = 'cobro_session';

/**
 * What a form's CSRF token is bound to (decision 925): the hash of the session cookie as the browser sent it, or
 * `signed-out` without one (the sign-in and invitation pages; the CSRF library takes no empty value). A token
 * shown to one session is refused with any other, so a `cobro_csrf` cookie planted from elsewhere (a sibling
 * subdomain, a plain-http answer) and its token open nothing.
 */
export function csrfUserInfo(cookies: Readonly<Record<string, string | undefined>>): string {
  const session = cookies[sessionCookie];
  return session === undefined || session === '' ? 'signed-out' : sha256Hex(`csrf:${session}`);
}

/** The merchant account a dashboard request acts for, and who acts. */
export interface DashboardAccount {
  readonly id: string;
  readonly name: string;
  /** The signed-in user's id, or null when the account's tokens opened the session (acting as its owner). */
  readonly userId: string | null;
  readonly email: string | null;
  readonly role: DashboardRole;
}

/**
 * What a user's session keeps where a token session keeps its tokens' hash: the hash of the password hash it was
 * opened with. A session lasts only while the user keeps that password, so a reset (or a new password) ends a
 * sign-in that checked the old one just before it, however the two interleaved (decision 835).
 */
function passwordMark(passwordHash: string): string {
  return sha256Hex(`password:${passwordHash}`);
}

function sameText(a: string, b: string): boolean {
  // Hashes first, so the comparison takes the same time whatever the lengths.
  return crypto.timingSafeEqual(
    crypto.createHash('sha256').update(a).digest(),
    crypto.createHash('sha256').update(b).digest(),
  );
}

/**
 * When a session used at `usedAt` ends (decision 1090): after `sessionIdleMs` without a request, and never later
 * than `sessionMs` after it was opened, however busy. `expires_at` holds this end; each request moves it ahead.
 */
function endOf(createdAt: Date, usedAt: Date): Date {
  return new Date(
    Math.min(
      createdAt.getTime() + dashboardLimits.sessionMs,
      usedAt.getTime() + dashboardLimits.sessionIdleMs,
    ),
  );
}

async function openSession(
  ctx: AppContext,
  accountId: string,
  tokenHash: string,
  userId: string | null,
): Promise<string> {
  const sessionId = crypto.randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  // Expired sessions of every account go as new ones come: the table holds only live sessions and a few stale ones.
  await ctx.db.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).execute();
  await ctx.db
    .insertInto('dashboard_sessions')
    .values({
      id_hash: sha256Hex(sessionId),
      account_id: accountId,
      token_hash: tokenHash,
      user_id: userId,
      created_at: now,
      expires_at: endOf(now, now),
    })
    .execute();
  return sessionId;
}

/**
 * Why a pair of tokens opens no session: no account's pair (`unknown`), a pair the API takes but the dashboard does
 * not (`not_primary`: a narrower key, or an old pair living out a rotation's grace), or the account's own pair with
 * token sign-in turned off (`token_sign_in_off`). Only the pair's holder learns the last two.
 */
export type TokenSignInRefusal = 'unknown' | 'not_primary' | 'token_sign_in_off';

/** A new session for the account these tokens belong to, or why they do not open one. */
export async function signIn(
  ctx: AppContext,
  publicToken: string,
  privateToken: string,
): Promise<{ sessionId: string } | { refused: TokenSignInRefusal }> {
  const account = await ctx.accounts.authenticatePublicToken(publicToken);
  if (account === null || !sameText(account.privateToken, privateToken))
    return { refused: 'unknown' };
  // Only the account's own pair opens the dashboard (decision 540): a narrower key, or an old pair living out a
  // rotation's grace, is for the API.
  if (account.keyId !== 'primary') return { refused: 'not_primary' };
  const row = await ctx.db
    .selectFrom('accounts')
    .select('dashboard_token_sign_in')
    .where('id', '=', account.id)
    .executeTakeFirst();
  if (row?.dashboard_token_sign_in !== true) return { refused: 'token_sign_in_off' };
  return { sessionId: await openSession(ctx, account.id, publicTokenHash(publicToken), null) };
}

/** A new session for a user whose password (and second factor) were checked. */
export async function signInUser(ctx: AppContext, user: SignedInUser): Promise<string> {
  return openSession(ctx, user.accountId, passwordMark(user.passwordHash), user.userId);
}

/**
 * The account of a live session: not expired, the account active, and either the user still there with the password
 * the session was opened with, or the account's tokens the ones it signed in with and token sign-in still allowed.
 */
export async function sessionAccount(
  ctx: AppContext,
  sessionId: string,
): Promise<DashboardAccount | null> {
  const now = ctx.clock.now();
  const row = await ctx.db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .leftJoin('dashboard_users as u', (join) =>
      join.onRef('u.id', '=', 's.user_id').onRef('u.account_id', '=', 's.account_id'),
    )
    .select([
      'a.id',
      'a.name',
      'a.public_token_hash',
      'a.dashboard_token_sign_in',
      's.token_hash',
      's.user_id',
      's.created_at',
      's.expires_at',
      'u.email',
      'u.role',
      'u.password_hash',
    ])
    .where('s.id_hash', '=', sha256Hex(sessionId))
    .where('s.expires_at', '>', now)
    .where('a.status', '=', 'active')
    .executeTakeFirst();
  if (row === undefined) return null;
  const account = { id: row.id, name: row.name };
  let signedIn: DashboardAccount | null;
  if (row.user_id === null)
    signedIn =
      row.token_hash === row.public_token_hash && row.dashboard_token_sign_in
        ? { ...account, userId: null, email: null, role: 'owner' }
        : null;
  else if (row.role === null || row.password_hash === null) signedIn = null;
  else if (!sameText(row.token_hash, passwordMark(row.password_hash))) signedIn = null;
  else signedIn = { ...account, userId: row.user_id, email: row.email, role: row.role };
  if (signedIn !== null) await touchSession(ctx, sessionId, row.created_at, row.expires_at, now);
  return signedIn;
}

/**
 * Moves a used session's end ahead (decision 1090), written only once it moved `sessionTouchMs`: a busy session
 * costs one write a minute, not one a request. A session opened before the idle bound existed (its end 12 hours after
 * its sign-in) is brought to it on its next request.
 */
async function touchSession(
  ctx: AppContext,
  sessionId: string,
  createdAt: Date,
  expiresAt: Date,
  now: Date,
): Promise<void> {
  const end = endOf(createdAt, now);
  if (Math.abs(end.getTime() - expiresAt.getTime()) < dashboardLimits.sessionTouchMs) return;
  await ctx.db
    .updateTable('dashboard_sessions')
    .set({ expires_at: end })
    .where('id_hash', '=', sha256Hex(sessionId))
    .execute();
}

export async function signOut(ctx: AppContext, sessionId: string): Promise<void> {
  await ctx.db
    .deleteFrom('dashboard_sessions')
    .where('id_hash', '=', sha256Hex(sessionId))
    .execute();
}

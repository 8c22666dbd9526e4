// Dashboard sessions: a merchant signs in with the account's public and private tokens and gets a random session
// id, which the browser keeps in a signed, HttpOnly, SameSite=Strict cookie and the database keeps only hashed.
// A session ends when it expires, when the merchant signs out, or when the account's tokens are rotated.
import crypto from 'node:crypto';
import type { AppContext } from '../platform/context.ts';
import type { Timestamp } from '../platform/db/types.ts';
import { publicTokenHash } from '../platform/auth/tokens.ts';
import { sha256Hex } from '../platform/auth/secrets.ts';
import { dashboardLimits } from '../limits/index.ts';

interface DashboardSessionTable {
  id_hash: string;
  account_id: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

declare module '../platform/db/types.ts' {
  interface Database {
    dashboard_sessions: DashboardSessionTable;
  }
}

/** The merchant account a dashboard request acts for. */
export interface DashboardAccount {
  readonly id: string;
  readonly name: string;
}

function sameText(a: string, b: string): boolean {
  // Hashes first, so the comparison takes the same time whatever the lengths.
  return crypto.timingSafeEqual(
    crypto.createHash('sha256').update(a).digest(),
    crypto.createHash('sha256').update(b).digest(),
  );
}

/** A new session for the account these tokens belong to, or null when they do not open one. */
export async function signIn(
  ctx: AppContext,
  publicToken: string,
  privateToken: string,
): Promise<{ sessionId: string; account: DashboardAccount } | null> {
  const account = await ctx.accounts.authenticatePublicToken(publicToken);
  if (account === null || !sameText(account.privateToken, privateToken)) return null;
  // Only the account's own pair opens the dashboard (decision 540): a narrower key, or an old pair living out a
  // rotation's grace, is for the API.
  if (account.keyId !== 'primary') return null;
  const sessionId = crypto.randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  // Expired sessions of every account go as new ones come: the table holds only live sessions and a few stale ones.
  await ctx.db.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).execute();
  await ctx.db
    .insertInto('dashboard_sessions')
    .values({
      id_hash: sha256Hex(sessionId),
      account_id: account.id,
      token_hash: publicTokenHash(publicToken),
      created_at: now,
      expires_at: new Date(now.getTime() + dashboardLimits.sessionMs),
    })
    .execute();
  return { sessionId, account: { id: account.id, name: account.name } };
}

/** The account of a live session: not expired, the account active, its tokens the ones it signed in with. */
export async function sessionAccount(
  ctx: AppContext,
  sessionId: string,
): Promise<DashboardAccount | null> {
  const row = await ctx.db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('accounts as a', (join) =>
      join.onRef('a.id', '=', 's.account_id').onRef('a.public_token_hash', '=', 's.token_hash'),
    )
    .select(['a.id', 'a.name'])
    .where('s.id_hash', '=', sha256Hex(sessionId))
    .where('s.expires_at', '>', ctx.clock.now())
    .where('a.status', '=', 'active')
    .executeTakeFirst();
  return row ?? null;
}

export async function signOut(ctx: AppContext, sessionId: string): Promise<void> {
  await ctx.db
    .deleteFrom('dashboard_sessions')
    .where('id_hash', '=', sha256Hex(sessionId))
    .execute();
}

// Named dashboard users (issue 37, decision 541): invited by e-mail with a role, they set a password through a
// one-time link (24 h) and may add a TOTP second factor. Roles are nested: a viewer reads; a developer also
// manages API keys and resends callbacks; an admin also moves money and changes settings; an owner also manages
// users. Signing in with the account's tokens counts as the owner, until an owner turns it off.
import crypto from 'node:crypto';
import type { ColumnType } from 'kysely';
import type { AppContext } from '../platform/context.ts';
import type { DbOrTx, Timestamp } from '../platform/db/types.ts';
import { sha256Hex } from '../platform/auth/secrets.ts';
import { isStorableText } from '../platform/http/input-guards.ts';
import { newId } from '../platform/ids/ids.ts';
import { formatTimestamp } from '../platform/time/time-format.ts';
import { userLimits } from '../limits/index.ts';
import { verifyPassword } from './passwords.ts';
import { totpStep } from './totp.ts';

export const dashboardRoles = ['viewer', 'developer', 'admin', 'owner'] as const;
export type DashboardRole = (typeof dashboardRoles)[number];

export function roleAllows(held: DashboardRole, needed: DashboardRole): boolean {
  return dashboardRoles.indexOf(held) >= dashboardRoles.indexOf(needed);
}

interface DashboardUserTable {
  id: string;
  account_id: string;
  email: string;
  role: DashboardRole;
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
  totp_secret_enc: ColumnType<string | null, string | null | undefined, string | null>;
  /** The step of the last TOTP code accepted (decision 580): codes of it and earlier are spent. */
  totp_last_step: ColumnType<
    string | null,
    string | number | null | undefined,
    string | number | null
  >;
  invite_hash: ColumnType<string | null, string | null | undefined, string | null>;
  invite_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When the user first set a password (migration 0540); null for a user never accepted. */
  accepted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

declare module '../platform/db/types.ts' {
  interface Database {
    dashboard_users: DashboardUserTable;
  }
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: string };

export interface Invitation {
  readonly userId: string;
  readonly email: string;
  readonly role: DashboardRole;
  /** The one-time sign-in link: shown once, kept only as its hash. */
  readonly link: string;
  readonly expiresAt: string;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface InviteRequest {
  readonly accountId: string;
  readonly email: string;
  readonly role: string;
}

/** A new user with a one-time link; inviting again an e-mail that never set its password issues a new link. */
export async function inviteUser(
  ctx: AppContext,
  request: InviteRequest,
  db: DbOrTx = ctx.db,
): Promise<Result<Invitation>> {
  const email = request.email.trim().toLowerCase();
  if (email.length > userLimits.emailLengthMax || !emailPattern.test(email))
    return { ok: false, error: 'the e-mail address is not valid' };
  const role = dashboardRoles.find((r) => r === request.role);
  if (role === undefined)
    return { ok: false, error: `--role must be one of ${dashboardRoles.join(', ')}` };
  const account = await db
    .selectFrom('accounts')
    .select('status')
    .where('id', '=', request.accountId)
    .executeTakeFirst();
  if (account?.status !== 'active')
    return { ok: false, error: `no active account with id ${request.accountId}` };
  await releaseDeadInvitation(db, email, request.accountId, ctx.clock.now());
  const existing = await db
    .selectFrom('dashboard_users')
    .select(['id', 'account_id', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst();
  if (
    existing !== undefined &&
    (existing.account_id !== request.accountId || existing.password_hash !== null)
  )
    return { ok: false, error: `a user with the e-mail ${email} already exists` };
  const count = await db
    .selectFrom('dashboard_users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', request.accountId)
    .executeTakeFirstOrThrow();
  if (existing === undefined && Number(count.n) >= userLimits.usersPerAccountMax)
    return { ok: false, error: `the account already has ${userLimits.usersPerAccountMax} users` };
  const token = crypto.randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + userLimits.inviteMs);
  const invite = { role, invite_hash: sha256Hex(token), invite_expires_at: expiresAt };
  const userId = existing?.id ?? newId('usr', 17);
  if (existing === undefined)
    await db
      .insertInto('dashboard_users')
      .values({ id: userId, account_id: request.accountId, email, created_at: now, ...invite })
      .execute();
  else await db.updateTable('dashboard_users').set(invite).where('id', '=', userId).execute();
  return {
    ok: true,
    value: {
      userId,
      email,
      role,
      link: invitationLink(ctx, token),
      expiresAt: formatTimestamp(expiresAt, ctx.config.timeZone),
    },
  };
}

/**
 * E-mails are unique across accounts (decision 541), but another account's user who never accepted and whose link
 * is dead (expired, or ended by a rotation) holds nothing: the row goes, so nobody can reserve a stranger's e-mail
 * with an invitation nobody used (decision 740). A user who once accepted keeps it, a reset one included.
 */
async function releaseDeadInvitation(
  db: DbOrTx,
  email: string,
  accountId: string,
  now: Date,
): Promise<void> {
  await db
    .deleteFrom('dashboard_users')
    .where('email', '=', email)
    .where('account_id', '<>', accountId)
    .where('accepted_at', 'is', null)
    .where('password_hash', 'is', null)
    .where((eb) => eb.or([eb('invite_expires_at', 'is', null), eb('invite_expires_at', '<=', now)]))
    .execute();
}

/** The page where the holder of `token` sets a password. */
export function invitationLink(ctx: AppContext, token: string): string {
  return `${ctx.config.publicBaseUrl}/dashboard/invite?token=${token}`;
}

/** The user a live invitation link names, or null (unknown, used or expired). */
export async function invitationOf(
  ctx: AppContext,
  token: string,
): Promise<{ readonly email: string } | null> {
  const row = await ctx.db
    .selectFrom('dashboard_users')
    .select('email')
    .where('invite_hash', '=', sha256Hex(token))
    .where('invite_expires_at', '>', ctx.clock.now())
    .executeTakeFirst();
  return row ?? null;
}

export function passwordProblem(password: string): string | null {
  if (password.length < userLimits.passwordLengthMin)
    return `La contraseña debe tener al menos ${userLimits.passwordLengthMin} caracteres.`;
  if (password.length > userLimits.passwordLengthMax)
    return `La contraseña debe tener a lo más ${userLimits.passwordLengthMax} caracteres.`;
  return null;
}

export interface SignedInUser {
  readonly userId: string;
  readonly accountId: string;
  /** The password hash that was checked (or set): the session opened with it lasts only while the user keeps it. */
  readonly passwordHash: string;
}

/** Sets the password (its hash: hashPassword) of a live invitation and ends the link, once: a second use finds none. */
export async function acceptInvitation(
  ctx: AppContext,
  token: string,
  passwordHash: string,
): Promise<SignedInUser | null> {
  const row = await ctx.db
    .updateTable('dashboard_users')
    .set((eb) => ({
      password_hash: passwordHash,
      invite_hash: null,
      invite_expires_at: null,
      accepted_at: eb.fn.coalesce('accepted_at', eb.val(ctx.clock.now())),
    }))
    .where('invite_hash', '=', sha256Hex(token))
    .where('invite_expires_at', '>', ctx.clock.now())
    .returning(['id', 'account_id'])
    .executeTakeFirst();
  return row === undefined ? null : { userId: row.id, accountId: row.account_id, passwordHash };
}

/**
 * The user these credentials name, or null: the password, and the TOTP code when the user added one. The hash is
 * computed even for an unknown e-mail, so timing does not tell which e-mails have users.
 */
export async function checkPassword(
  ctx: AppContext,
  email: string,
  password: string,
  code: string,
): Promise<SignedInUser | null> {
  // An e-mail PostgreSQL cannot store (a NUL) names no user: not looked up, and still hashed below (decision 740).
  const row = isStorableText(email)
    ? await ctx.db
        .selectFrom('dashboard_users')
        .select(['id', 'account_id', 'password_hash', 'totp_secret_enc'])
        .where('email', '=', email.trim().toLowerCase())
        .executeTakeFirst()
    : undefined;
  const matches = await verifyPassword(
    password,
    row?.password_hash ?? null,
    ctx.config.passwordHashCost,
  );
  if (!matches || row === undefined || row.password_hash === null) return null;
  if (row.totp_secret_enc !== null) {
    const step = totpStep(ctx.secrets.open(row.totp_secret_enc), code, ctx.clock.now());
    if (step === null || !(await spendTotpStep(ctx, row.id, step))) return null;
  }
  return { userId: row.id, accountId: row.account_id, passwordHash: row.password_hash };
}

/**
 * Marks `step` spent for the user, in one statement so two sign-ins racing with one code cannot both win: false
 * when a code of this step or a later one was already accepted.
 */
export async function spendTotpStep(
  ctx: AppContext,
  userId: string,
  step: number,
): Promise<boolean> {
  const spent = await ctx.db
    .updateTable('dashboard_users')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where((eb) =>
      eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', String(step))]),
    )
    .returning('id')
    .executeTakeFirst();
  return spent !== undefined;
}

export interface UserView {
  readonly id: string;
  readonly email: string;
  readonly role: DashboardRole;
  readonly state: 'invited' | 'active';
  readonly createdAt: string;
}

export async function listUsers(ctx: AppContext, accountId: string): Promise<readonly UserView[]> {
  const rows = await ctx.db
    .selectFrom('dashboard_users')
    .select(['id', 'email', 'role', 'password_hash', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(userLimits.usersPerAccountMax)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    state: r.password_hash === null ? 'invited' : 'active',
    createdAt: formatTimestamp(r.created_at, ctx.config.timeZone),
  }));
}

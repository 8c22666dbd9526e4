// An owner or operator resets a dashboard user who lost their password or second factor (decision 580): the
// password, the TOTP secret and its spent step are cleared, every session of the user ends, and a new one-time
// link (24 h) lets the user set a password again. The user keeps their id and role.
import crypto from 'node:crypto';
import type { AppContext } from '../platform/context.ts';
import { inTransaction } from '../platform/db/unit-of-work.ts';
import { sha256Hex } from '../platform/auth/secrets.ts';
import { formatTimestamp } from '../platform/time/time-format.ts';
import { userLimits } from '../limits/index.ts';
import { invitationLink, type Invitation, type Result } from './users.ts';

export async function resetUser(
  ctx: AppContext,
  accountId: string,
  email: string,
): Promise<Result<Invitation>> {
  const token = crypto.randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + userLimits.inviteMs);
  const user = await inTransaction(ctx.db, async (tx) => {
    const row = await tx
      .updateTable('dashboard_users')
      .set({
        password_hash: null,
        totp_secret_enc: null,
        totp_last_step: null,
        invite_hash: sha256Hex(token),
        invite_expires_at: expiresAt,
      })
      .where('account_id', '=', accountId)
      .where('email', '=', email.trim().toLowerCase())
      .returning(['id', 'email', 'role'])
      .executeTakeFirst();
    if (row !== undefined)
      await tx.deleteFrom('dashboard_sessions').where('user_id', '=', row.id).execute();
    return row;
  });
  if (user === undefined)
    return { ok: false, error: `no user with the e-mail ${email} in account ${accountId}` };
  return {
    ok: true,
    value: {
      userId: user.id,
      email: user.email,
      role: user.role,
      link: invitationLink(ctx, token),
      expiresAt: formatTimestamp(expiresAt, ctx.config.timeZone),
    },
  };
}

// An operator removes a dashboard user (decision 740): after a leak, someone who held the account's tokens may have
// invited themselves; rotating the tokens ends every session and pending link, and this takes out the user row
// itself, its sessions with it (they cascade). The e-mail is free again for any account.
import type { AppContext } from '../platform/context.ts';
import type { Result } from './users.ts';

export async function removeUser(
  ctx: AppContext,
  accountId: string,
  email: string,
): Promise<Result<{ readonly userId: string; readonly email: string }>> {
  const row = await ctx.db
    .deleteFrom('dashboard_users')
    .where('account_id', '=', accountId)
    .where('email', '=', email.trim().toLowerCase())
    .returning(['id', 'email'])
    .executeTakeFirst();
  if (row === undefined)
    return { ok: false, error: `no user with the e-mail ${email} in account ${accountId}` };
  return { ok: true, value: { userId: row.id, email: row.email } };
}

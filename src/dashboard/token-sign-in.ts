// Signing in to the dashboard with the account's tokens, on or off (decision 541): it counts as the owner, so an
// owner with a password may turn it off, and turning it off ends the sessions the tokens opened (decision 740).
import type { AppContext } from '../platform/context.ts';
import { inTransaction } from '../platform/db/unit-of-work.ts';
import type { Result } from './users.ts';

/**
 * Turns signing in with the account's tokens on or off. Off only once an owner has set a password, so nobody is
 * locked out; turning it off ends (deletes) the sessions opened with the tokens, in the same transaction, so
 * turning it on again later brings none of them back (decision 740).
 */
export async function setTokenSignIn(
  ctx: AppContext,
  accountId: string,
  allowed: boolean,
): Promise<Result<boolean>> {
  if (!allowed) {
    const owner = await ctx.db
      .selectFrom('dashboard_users')
      .select('id')
      .where('account_id', '=', accountId)
      .where('role', '=', 'owner')
      .where('password_hash', 'is not', null)
      .executeTakeFirst();
    if (owner === undefined)
      return { ok: false, error: 'the account has no owner with a password yet: invite one first' };
  }
  const updated = await inTransaction(ctx.db, async (tx) => {
    const set = await tx
      .updateTable('accounts')
      .set({ dashboard_token_sign_in: allowed })
      .where('id', '=', accountId)
      .executeTakeFirst();
    if (!allowed)
      await tx
        .deleteFrom('dashboard_sessions')
        .where('account_id', '=', accountId)
        .where('user_id', 'is', null)
        .execute();
    return set.numUpdatedRows;
  });
  if (updated === 0n) return { ok: false, error: `no account with id ${accountId}` };
  return { ok: true, value: allowed };
}

// Strict signing (decision 140): once on, the account's every authenticated request must carry a valid
// Cobro-Signature. The change applies to the next request: this process forgets the accounts it kept in memory at
// once, others when the database's notification reaches them (decision 190).
import type { AppContext } from '../../platform/context.ts';
import type { AccountResult } from './service.ts';

export async function setStrictSigning(
  ctx: AppContext,
  accountId: string,
  required: boolean,
): Promise<AccountResult<{ readonly id: string; readonly strictSigning: boolean }>> {
  const updated = await ctx.db
    .updateTable('accounts')
    .set({ strict_signing: required, updated_at: ctx.clock.now() })
    .where('id', '=', accountId)
    .returning(['id', 'strict_signing'])
    .executeTakeFirst();
  if (updated === undefined) return { ok: false, error: `no account with id ${accountId}` };
  ctx.accounts.forgetKept();
  ctx.logger.info({ accountId, strictSigning: updated.strict_signing }, 'strict signing changed');
  return { ok: true, value: { id: updated.id, strictSigning: updated.strict_signing } };
}

// Time-driven payout moves in the sandbox: pending -> processing -> success on the account's sandbox clock
// (decision 020). Production payouts carry no due time: an operator resolves them (payout-operator-resolve.ts).
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { limits } from '../../limits/index.ts';
import { transitionPayout } from './payout-transition.ts';
import './types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';

/**
 * One payout per transaction: a batch transaction would hold many wallets' ledger rows and the shared
 * bank_clearing row at once, and could deadlock with payouts being created for those wallets.
 */
async function resolveOne(ctx: AppContext, accountId: string | undefined): Promise<boolean> {
  return inTransaction(ctx.db, async (tx) => {
    let query = tx
      .selectFrom('payouts')
      .selectAll()
      .where('due_at', 'is not', null)
      .where('status', 'in', ['pending', 'processing'])
      .where('due_at', '<=', ctx.accountClock.nowSql(sql.ref<string>('payouts.account_id')));
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const row = await query.orderBy('due_at').limit(1).forUpdate().skipLocked().executeTakeFirst();
    if (row === undefined) return false;
    const at = await ctx.accountClock.now(row.account_id, tx);
    if (row.status === 'pending') {
      await transitionPayout(ctx, tx, row, 'processing', {
        at,
        dueAt: new Date(row.created_at.getTime() + limits.sandboxPayoutSuccessAfterMs),
      });
    } else {
      await transitionPayout(ctx, tx, row, 'success', { at });
    }
    return true;
  });
}

export async function resolveDuePayouts(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  let processed = 0;
  while (processed < scope.limit && (await resolveOne(ctx, scope.accountId))) processed++;
  return processed;
}

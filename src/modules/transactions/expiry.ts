// Expiry (reference §1.1 `expired`): a pending transaction whose moment has passed, on its account's clock,
// becomes rejected and the merchant is told (status failed). Runs as due work; the checkout also expires a
// transaction it finds overdue, so a payer never pays an expired order.
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { isUndecidedSession } from '../../platform/processors/account-processors.ts';
import { isExpired } from './attempt-claim.ts';
import { expiryRejection, recordRejection } from './transaction-result.ts';
import './types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';

async function expireOne(ctx: AppContext, scope: DueWorkScope): Promise<boolean> {
  return inTransaction(ctx.db, async (tx) => {
    const now = ctx.accountClock.nowSql(sql.ref('transactions.account_id'));
    // The attempt's lease is on the service clock (decision 760), expires_at on the account's.
    const leaseNow = ctx.clock.now();
    let q = tx
      .selectFrom('transactions')
      .selectAll()
      .where('status', '=', 'pending')
      .where('expires_at', '<=', now)
      .where((eb) =>
        eb.or([eb('attempt_lease_until', 'is', null), eb('attempt_lease_until', '<=', leaseNow)]),
      )
      // A Webpay commit whose answer was lost, or a Fintoc session not yet closed, is the acquirer's to decide,
      // never expiry's (decisions 150, 665).
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('processor_sessions')
              .select('processor_sessions.attempt_id')
              .whereRef('processor_sessions.transaction_id', '=', 'transactions.id')
              .where(isUndecidedSession),
          ),
        ),
      );
    if (scope.accountId !== undefined) q = q.where('account_id', '=', scope.accountId);
    const row = await q.orderBy('expires_at').limit(1).forUpdate().skipLocked().executeTakeFirst();
    if (row === undefined) return false;
    const at = await ctx.accountClock.now(row.account_id, tx);
    if (!isExpired(row, at, leaseNow)) return false;
    await recordRejection(tx, row, expiryRejection, at);
    return true;
  });
}

export async function runExpiries(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  let processed = 0;
  while (processed < scope.limit && (await expireOne(ctx, scope))) processed++;
  return processed;
}

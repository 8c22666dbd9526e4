// The account's Fintoc reconciliation findings (decision 512), shown on the dashboard's payouts page: movements at
// Fintoc with no payout, withdrawal or sale, and expected ones missing, newest first.
import type { AppContext } from '../platform/context.ts';
import { dashboardLimits } from '../limits/index.ts';

export async function fintocFindings(ctx: AppContext, accountId: string) {
  return ctx.db
    .selectFrom('fintoc_movement_findings')
    .select(['kind', 'subject', 'amount_minor', 'currency', 'detail', 'found_at'])
    .where('account_id', '=', accountId)
    .orderBy('found_at', 'desc')
    .limit(dashboardLimits.rowsPerPage)
    .execute();
}

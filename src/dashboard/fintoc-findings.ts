// The account's Fintoc reconciliation findings (decision 512), shown on the dashboard's payouts page: movements at
// Fintoc with no payout, withdrawal or sale, expected ones missing, and transfers and refunds Fintoc may have made
// that wait on the operator (decisions 750, 850), and transfer results for another amount (decision 992), newest first, each kind named in the dashboard's Spanish.
import type { AppContext } from '../platform/context.ts';
import { dashboardLimits } from '../limits/index.ts';
import type { FindingKind } from '../modules/fintoc/reconcile-match.ts';

const findingLabels: Record<FindingKind, string> = {
  unmatched_movement: 'Movimiento sin pago asociado',
  missing_movement: 'Movimiento faltante',
  unresolved_transfer: 'Transferencia sin confirmar',
  unresolved_refund: 'Devolución sin confirmar',
  transfer_mismatch: 'Transferencia informada por otro monto',
};

export async function fintocFindings(ctx: AppContext, accountId: string) {
  const rows = await ctx.db
    .selectFrom('fintoc_movement_findings')
    .select(['kind', 'subject', 'amount_minor', 'currency', 'detail', 'found_at'])
    .where('account_id', '=', accountId)
    .orderBy('found_at', 'desc')
    .limit(dashboardLimits.rowsPerPage)
    .execute();
  return rows.map((r) => ({ ...r, label: findingLabels[r.kind] }));
}

// What the dashboard reads about one merchant's money: balances from the ledger (available, reserved for payouts
// in flight, waiting for settlement), the wallet movement log, and payouts with their states. Scoped to the account.
import type { AppContext } from '../platform/context.ts';
import { ledgerCodes } from '../platform/ledger/ledger.ts';
import '../modules/wallet/repository.ts';
import { payoutStatuses, type PayoutStatus } from '../modules/wallet/payout-states.ts';
import { dashboardLimits } from '../limits/index.ts';

/** CLP first, then every other currency the account has moved money in. */
export async function walletCurrencies(ctx: AppContext, accountId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('wallet_movements')
    .select('currency')
    .distinct()
    .where('account_id', '=', accountId)
    .execute();
  return [
    'CLP',
    ...rows
      .map((r) => r.currency)
      .filter((c) => c !== 'CLP')
      .sort(),
  ];
}

export async function walletBalances(ctx: AppContext, accountId: string, currency: string) {
  const balance = (code: string) =>
    ctx.ledger.balance(ctx.db, { owner: accountId, code, currency });
  return {
    available: await balance(ledgerCodes.walletAvailable),
    reserved: await balance(ledgerCodes.walletReserved),
    pending: await balance(ledgerCodes.pendingSettlement),
    /** Settled sales of an escrow account waiting for POST /api/escrow (docs/escrow.md); 0 for other accounts. */
    held: await balance(ledgerCodes.escrowHeld),
  };
}

/** One page of movements, newest first, and whether an older page exists (one row more is read to know). */
export async function walletMovements(
  ctx: AppContext,
  accountId: string,
  currency: string,
  page: number,
) {
  const perPage = dashboardLimits.rowsPerPage;
  const rows = await ctx.db
    .selectFrom('wallet_movements')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .orderBy('seq', 'desc')
    .offset((page - 1) * perPage)
    .limit(perPage + 1)
    .execute();
  return { rows: rows.slice(0, perPage), more: rows.length > perPage };
}

export function parsePayoutStatus(value: unknown): PayoutStatus | null {
  return typeof value === 'string' && (payoutStatuses as readonly string[]).includes(value)
    ? (value as PayoutStatus)
    : null;
}

export async function listPayouts(
  ctx: AppContext,
  accountId: string,
  status: PayoutStatus | null,
  page: number,
) {
  const perPage = dashboardLimits.rowsPerPage;
  let query = ctx.db
    .selectFrom('payouts')
    .select([
      'id',
      'kind',
      'order',
      'subject',
      'amount_minor',
      'currency',
      'status',
      'reason_rejection',
      'accountbank_name',
      'accountbank_sbif',
      'created_at',
      'updated_at',
    ])
    .where('account_id', '=', accountId);
  if (status !== null) query = query.where('status', '=', status);
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset((page - 1) * perPage)
    .limit(perPage + 1)
    .execute();
  return { rows: rows.slice(0, perPage), more: rows.length > perPage };
}

// The wallet (balances from the ledger and the movement log) and the payouts and withdrawals with their states.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { payoutStatuses } from '../modules/wallet/payout-states.ts';
import { dashboardLimits } from '../limits/index.ts';
import { pageNumberOf } from './format.ts';
import { fintocFindings } from './fintoc-findings.ts';
import { owedDebtByDispute, type OwedDebt } from '../modules/disputes/debt-owed.ts';
import { disputeStatusLabels } from './dispute-pages.ts';
import { accountOf, queryOf, renderPage } from './render.ts';
import {
  listPayouts,
  parsePayoutStatus,
  walletBalances,
  walletCurrencies,
  walletMovements,
} from './wallet.ts';

/** The chargeback debt of the shown currency (decision 1015), or null when the account owes nothing in it. */
function debtView(debt: OwedDebt | undefined) {
  if (debt === undefined) return null;
  return {
    owedMinor: debt.owedMinor,
    disputes: debt.disputes.map((d) => ({
      ...d,
      statusLabel: disputeStatusLabels[d.status] ?? d.status,
    })),
    unlisted: debt.disputesCount - debt.disputes.length,
  };
}

export function registerWalletPages(app: FastifyInstance, ctx: AppContext): void {
  app.get('/wallet', async (request, reply) => {
    const account = accountOf(request);
    const query = request.query as Record<string, unknown>;
    const debts = await owedDebtByDispute(ctx.db, account.id, dashboardLimits.debtDisputesMax);
    // A currency owed in has its tab even before any movement in it (a chargeback on a sale not yet settled).
    const moved = await walletCurrencies(ctx, account.id);
    const currencies = [
      ...moved,
      ...debts.map((d) => d.currency).filter((c) => !moved.includes(c)),
    ];
    const currency =
      typeof query.currency === 'string' && currencies.includes(query.currency)
        ? query.currency
        : 'CLP';
    const page = pageNumberOf(query.page, dashboardLimits.pageNumberMax);
    const balances = await walletBalances(ctx, account.id, currency);
    const { rows, more } = await walletMovements(ctx, account.id, currency, page);
    const link = (p: number) =>
      queryOf({ currency: currency === 'CLP' ? null : currency, page: p > 1 ? p : null });
    return renderPage(ctx, request, reply, 200, 'wallet', {
      title: 'Billetera',
      section: 'wallet',
      currency,
      currencies,
      balances,
      debt: debtView(debts.find((d) => d.currency === currency)),
      rows,
      page,
      previous: page > 1 ? link(page - 1) : null,
      next: more ? link(page + 1) : null,
    });
  });

  app.get('/payouts', async (request, reply) => {
    const account = accountOf(request);
    const query = request.query as Record<string, unknown>;
    const status = parsePayoutStatus(query.status);
    const unknownStatus =
      typeof query.status === 'string' && query.status !== '' && status === null;
    const page = pageNumberOf(query.page, dashboardLimits.pageNumberMax);
    const { rows, more } = await listPayouts(ctx, account.id, status, page);
    const link = (p: number) => queryOf({ status, page: p > 1 ? p : null });
    return renderPage(ctx, request, reply, 200, 'payouts', {
      title: 'Pagos y retiros',
      section: 'payouts',
      status,
      statuses: payoutStatuses,
      unknownStatus,
      rows,
      findings: await fintocFindings(ctx, account.id),
      page,
      previous: page > 1 ? link(page - 1) : null,
      next: more ? link(page + 1) : null,
    });
  });
}

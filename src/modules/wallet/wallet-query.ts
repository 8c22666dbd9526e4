// The Wallet summary (seed): balance, latest movement and a page of movements, newest first.
import type { AppContext } from '../../platform/context.ts';
import { notFound } from '../../platform/errors/errors.ts';
import { ledgerCodes } from '../../platform/ledger/ledger.ts';
import { findMovement, latestMovementId, movementsPage, payoutsByIds } from './repository.ts';
import { movementBody, safeInteger } from './views.ts';

export interface SummaryQuery {
  readonly accountId: string;
  readonly currency: string;
  readonly page: number;
  readonly perPage: number;
}

const payoutMovementKinds: ReadonlySet<string> = new Set([
  'payout',
  'withdrawal',
  'payout_reversal',
  'withdrawal_reversal',
]);

async function render(
  ctx: AppContext,
  q: SummaryQuery,
  movements: Awaited<ReturnType<typeof movementsPage>>,
  filterId: string | null,
  balanceMinor: bigint,
) {
  // The first page's first row is the newest movement: no second read for it (decision 562).
  const currentId =
    q.page === 1 && filterId === null
      ? (movements[0]?.id ?? null)
      : await latestMovementId(ctx.db, q.accountId, q.currency);
  const payoutIds = [
    ...new Set(movements.filter((m) => payoutMovementKinds.has(m.kind)).map((m) => m.reference)),
  ];
  const payouts = new Map(
    (await payoutsByIds(ctx.db, q.accountId, payoutIds)).map((p) => [p.id, p]),
  );
  return {
    status: 'success' as const,
    current_id: currentId ?? '',
    amount_available: safeInteger(balanceMinor),
    currency: q.currency,
    filter: {
      page: q.page,
      per_page: q.perPage,
      currency: q.currency,
      id: filterId ?? currentId ?? '',
    },
    wallet_movements: movements.map((m) =>
      movementBody(ctx, m, payoutMovementKinds.has(m.kind) ? payouts.get(m.reference) : undefined),
    ),
  };
}

function walletBalance(ctx: AppContext, accountId: string, currency: string): Promise<bigint> {
  return ctx.ledger.balance(ctx.db, {
    owner: accountId,
    code: ledgerCodes.walletAvailable,
    currency,
  });
}

export async function walletSummary(ctx: AppContext, q: SummaryQuery) {
  // Two indexed reads sent together: the ledger account's row and the page (wallet_movements_account).
  const [movements, balanceMinor] = await Promise.all([
    movementsPage(ctx.db, q.accountId, q.currency, q.page, q.perPage),
    walletBalance(ctx, q.accountId, q.currency),
  ]);
  return render(ctx, q, movements, null, balanceMinor);
}

/** One movement in the summary envelope; the filter names it and the balance is of its currency. */
export async function walletMovement(ctx: AppContext, accountId: string, movementId: string) {
  const movement = await findMovement(ctx.db, accountId, movementId);
  if (movement === undefined) throw notFound('wallet movement');
  return render(
    ctx,
    { accountId, currency: movement.currency, page: 1, perPage: 1 },
    [movement],
    movement.id,
    await walletBalance(ctx, accountId, movement.currency),
  );
}

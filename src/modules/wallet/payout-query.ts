// GET /api/payout/{id} and /api/payoutv3/{id}: one payout or withdrawal of the caller's account.
import type { AppContext } from '../../platform/context.ts';
import { notFound } from '../../platform/errors/errors.ts';
import { findPayout, type PayoutRow } from './repository.ts';
import { payoutBody } from './views.ts';

async function owned(ctx: AppContext, accountId: string, id: string): Promise<PayoutRow> {
  const row = await findPayout(ctx.db, accountId, id);
  if (row === undefined) throw notFound('payout');
  return row;
}

export async function payoutById(ctx: AppContext, accountId: string, id: string) {
  const row = await owned(ctx, accountId, id);
  return { payout: { ...payoutBody(ctx, row), origin_wallet: row.movement_id ?? '' } };
}

/** The v3 form adds reason_rejection: the bank's words for a rejection, empty otherwise. */
export async function payoutV3ById(ctx: AppContext, accountId: string, id: string) {
  const row = await owned(ctx, accountId, id);
  return {
    payout: {
      ...payoutBody(ctx, row),
      origin_wallet: row.movement_id ?? '',
      reason_rejection: row.reason_rejection,
    },
  };
}

// GET /api/mall/{id} (reference §5.2): the mall's state, its payment once paid, and each store's line with the
// store's display name.
import type { AppContext } from '../../platform/context.ts';
import { notFound } from '../../platform/errors/errors.ts';
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import { findMall, linesOf } from './repository.ts';

export async function mallView(ctx: AppContext, accountId: string, id: string) {
  const mall = await findMall(ctx.db, id);
  if (mall === undefined || mall.account_id !== accountId) throw notFound('mall');
  const lines = await linesOf(ctx.db, mall.id);
  const statuses = new Map(
    (
      await ctx.db
        .selectFrom('transactions')
        .select(['id', 'status'])
        .where(
          'id',
          'in',
          lines.map((l) => l.transaction_id),
        )
        .execute()
    ).map((r) => [r.id, r.status]),
  );
  return {
    status: mall.status,
    id: mall.id,
    created_at: formatTimestamp(mall.created_at, ctx.config.timeZone),
    amount: String(mall.amount_minor),
    order: mall.order,
    payment:
      mall.status !== 'success' || mall.media === null
        ? null
        : {
            media: mall.media,
            verification_key: mall.verification_key,
            authorization_code: mall.authorization_code,
            last_4_digits: mall.card_last4,
            card_type: mall.card_type ?? '',
            currency: mall.currency,
          },
    merchant: lines.map((l) => ({
      name: l.store_name,
      amount: minorAsJsonNumber(BigInt(l.amount_minor)),
      subject: l.subject,
      individual_order: l.individual_order,
      transaction_id: l.transaction_id,
      status: statuses.get(l.transaction_id) ?? 'pending',
    })),
  };
}

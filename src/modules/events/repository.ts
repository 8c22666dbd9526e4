// SQL of events. Every read is scoped to the merchant account that owns the rows.
import { sql } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import './types.ts';

export async function findEventByCode(db: DbOrTx, accountId: string, code: string) {
  return db
    .selectFrom('events')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('code', '=', code)
    .executeTakeFirst();
}

export type EventRow = NonNullable<Awaited<ReturnType<typeof findEventByCode>>>;

export async function eventBeneficiaries(db: DbOrTx, eventId: string) {
  return db
    .selectFrom('event_beneficiaries')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('position')
    .execute();
}

export interface SalesTotals {
  readonly count: bigint;
  readonly grossMinor: bigint;
  readonly affiliateMinor: bigint;
  readonly feeMinor: bigint;
  readonly balanceMinor: bigint;
}

/**
 * Sums over the event's paid sales less what refunds took back of each (decision 116); what the merchant keeps is
 * the gross less the fee and the beneficiaries' parts. `count` counts every paid sale, refunded ones too.
 */
export async function eventSalesTotals(db: DbOrTx, eventId: string): Promise<SalesTotals> {
  const row = await db
    .selectFrom('event_sales')
    .select([
      sql<string>`COUNT(*)::text`.as('count'),
      sql<string>`COALESCE(SUM(gross_minor - refunded_minor), 0)::text`.as('gross'),
      sql<string>`COALESCE(SUM(affiliate_minor - affiliate_refunded_minor), 0)::text`.as(
        'affiliate',
      ),
      sql<string>`COALESCE(SUM(fee_minor - fee_refunded_minor), 0)::text`.as('fee'),
      // Gross less fee less the beneficiaries' parts: after a refund the processor refused, the parts it took
      // stay with the merchant (decisions 116, 790).
      sql<string>`COALESCE(SUM((gross_minor - refunded_minor) - (fee_minor - fee_refunded_minor) - (affiliate_minor - affiliate_refunded_minor)), 0)::text`.as(
        'balance',
      ),
    ])
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
  return {
    count: BigInt(row.count),
    grossMinor: BigInt(row.gross),
    affiliateMinor: BigInt(row.affiliate),
    feeMinor: BigInt(row.fee),
    balanceMinor: BigInt(row.balance),
  };
}

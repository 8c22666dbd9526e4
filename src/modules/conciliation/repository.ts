// SQL of the conciliation report: the transactions settled by an account's settlement batches created in a range,
// each with its batch and what its settlement put in the merchant's wallet (its `settlement` wallet movement).
// A batch always holds at least one transaction (it is opened by one, in that transaction's commit), so the lines
// name every batch of the range. A sale of an escrow account settles into its hold (escrow_holds, decision 115):
// the line carries what the hold took, what it released to the wallet and what it still keeps (decision 432).
import { sql } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import '../transactions/types.ts';
import '../escrow/types.ts';

export interface LineRow {
  readonly batch_id: string;
  readonly batch_currency: string;
  readonly batch_created_at: Date;
  readonly id: string;
  readonly payment_key: string;
  readonly order: string;
  readonly created_at: Date;
  readonly checkout_opened_at: Date | null;
  readonly ended_at: Date | null;
  readonly settled_at: Date | null;
  readonly amount_minor: bigint;
  readonly fee_minor: bigint | null;
  readonly media: string | null;
  /** What the settlement of this transaction put in the merchant's wallet_available (0 when none). */
  readonly wallet_minor: bigint;
  /** What its settlement put in the account's escrow hold instead (0 when not held). */
  readonly escrow_minor: bigint;
  /** What POST /api/escrow released of it to the wallet (0 until released). */
  readonly released_minor: bigint;
  /** What the hold still keeps (0 once released, or when never held). */
  readonly held_minor: bigint;
}

/** At most `rowsMax` lines, in batch order (a batch's lines are consecutive). */
export async function linesIn(
  db: DbOrTx,
  accountId: string,
  from: Date,
  before: Date,
  rowsMax: number,
): Promise<LineRow[]> {
  const rows = await db
    .selectFrom('settlement_batches as b')
    .innerJoin('transactions as t', 't.settlement_batch_id', 'b.id')
    .leftJoin('escrow_holds as h', 'h.transaction_id', 't.id')
    .select((eb) => [
      eb.fn.coalesce('h.settled_minor', sql<bigint>`0`).as('escrow_minor'),
      eb.fn.coalesce('h.released_minor', sql<bigint>`0`).as('released_minor'),
      sql<bigint>`CASE WHEN h.released_at IS NULL THEN COALESCE(h.held_minor, 0) ELSE 0 END`.as(
        'held_minor',
      ),
    ])
    .select([
      'b.id as batch_id',
      'b.currency as batch_currency',
      'b.created_at as batch_created_at',
      't.id',
      't.payment_key',
      't.order',
      't.created_at',
      't.checkout_opened_at',
      't.ended_at',
      't.settled_at',
      't.amount_minor',
      't.fee_minor',
      't.media',
    ])
    .where('b.account_id', '=', accountId)
    .where('b.created_at', '>=', from)
    .where('b.created_at', '<', before)
    .orderBy('b.created_at')
    .orderBy('b.id')
    .orderBy('t.settled_at')
    .orderBy('t.id')
    .limit(rowsMax)
    .execute();
  // What each sale's settlement put in the merchant's wallet: its `settlement` wallet movement, written with the
  // settlement journal that moved it (one journal a sale, or one a chunk's batch and account, decision 561).
  const posted =
    rows.length === 0
      ? []
      : (
          await db
            .selectFrom('wallet_movements')
            .select(['reference', 'currency', 'amount_minor'])
            .where('account_id', '=', accountId)
            .where('kind', '=', 'settlement')
            .where(
              'reference',
              'in',
              rows.map((r) => r.id),
            )
            .execute()
        ).map((m) => ({
          reference: m.reference,
          currency: m.currency,
          amountMinor: BigInt(m.amount_minor),
        }));
  const walletOf = new Map(posted.map((p) => [`${p.reference}\u0000${p.currency}`, p.amountMinor]));
  return rows.map((r) => ({
    ...r,
    wallet_minor: walletOf.get(`${r.id}\u0000${r.batch_currency}`) ?? 0n,
  }));
}

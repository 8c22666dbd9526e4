// Concurrent reads of checkout rows share one statement (decision 715). Every payer's page (the checkout's GET and
// POST, the acquirers' returns) first reads its transaction's row by id: one round trip each, a fifth of a card
// payment's. The readers that arrive while a read runs are answered by the next one, `WHERE id = ANY(...)` for all
// of their ids; a reader never joins the read running, which may have begun before the payer's own last write
// committed (the same rule as decision 625's wallet pages). Nothing waits for a group to fill
// (platform/work/keyed-batcher.ts), and nothing is kept.
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Engine } from '../../platform/db/database.ts';
import { KeyedBatcher, batchingFor } from '../../platform/work/keyed-batcher.ts';
import { limits } from '../../limits/index.ts';
import type { TransactionRow } from './repository.ts';

interface Queued {
  readonly ctx: AppContext;
  readonly id: string;
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** The app's shared reads of checkout rows, made once by the composition root (src/runtime.ts). */
    readonly transactionRowReads: TransactionRowReads;
  }
}

export type TransactionRowReads = KeyedBatcher<Queued, TransactionRow | undefined>;

/** One lane for every id: a read of many rows by their primary key costs about what a read of one does. */
const lane = 'rows';

export function transactionRowReads(engine: Engine): TransactionRowReads {
  return new KeyedBatcher<Queued, TransactionRow | undefined>(
    async (_key, items) => {
      const { ctx } = items[0]!;
      const ids = [...new Set(items.map((i) => i.id))];
      // One array parameter: the statement's text is the same however many rows it reads (decision 370).
      const rows = await ctx.db
        .selectFrom('transactions')
        .selectAll()
        .where(sql<boolean>`id = ANY(${ids}::text[])`)
        .execute();
      const byId = new Map(rows.map((row) => [row.id, row]));
      return items.map((i) => ({ ok: true, value: byId.get(i.id) }));
    },
    limits.transactionRowReadGroupMax,
    batchingFor(engine),
  );
}

/** The transaction's row as the next shared read finds it; for the payer's pages, whose `ctx.db` is the app's. */
export function readTransactionRow(
  ctx: AppContext,
  id: string,
): Promise<TransactionRow | undefined> {
  return ctx.transactionRowReads.run(lane, { ctx, id });
}

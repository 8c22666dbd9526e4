// Group commit of creates (decision 400): the keyless creates that arrive while the process's previous create
// statement runs are written together by the next one, one row each (insertTransactions). A create's cost on PGlite
// is mostly its statement's (parse, executor, commit), not its row's; on PostgreSQL the group shares one commit.
// Nothing waits for a group to fill: a create that finds none running is written at once, alone.
import type { AppContext } from '../../platform/context.ts';
import { appKeyOf } from '../../platform/app-memo.ts';
import { KeyedBatcher, type Settled } from '../../platform/keyed-batcher.ts';
import { limits } from '../../limits.ts';
import { insertTransaction, insertTransactions, type NewTransaction } from './transaction-insert.ts';

interface Queued {
  readonly ctx: AppContext;
  readonly row: NewTransaction;
}

/** One lane: PGlite runs one statement at a time anyway, and on PostgreSQL one lane's groups are the biggest. */
const lane = 'creates';

/**
 * The statement is atomic: when it fails (a random key taken, the account gone, the connection lost before the
 * commit) no row was written, and each create runs again alone, so only its own request answers its failure.
 */
async function writeGroup(_lane: string, items: readonly Queued[]): Promise<readonly Settled<void>[]> {
  const { ctx } = items[0]!;
  if (items.length === 1) {
    await insertTransaction(ctx, ctx.db, items[0]!.row);
    return [{ ok: true, value: undefined }];
  }
  try {
    await insertTransactions(ctx, ctx.db, items.map((item) => item.row));
    return items.map(() => ({ ok: true, value: undefined }));
  } catch {
    const settled: Settled<void>[] = [];
    for (const item of items) {
      try {
        await insertTransaction(item.ctx, item.ctx.db, item.row);
        settled.push({ ok: true, value: undefined });
      } catch (error) {
        settled.push({ ok: false, error });
      }
    }
    return settled;
  }
}

/** One batcher per app (database). */
const createBatchers = new WeakMap<object, KeyedBatcher<Queued, void>>();

function createBatcherOf(ctx: AppContext): KeyedBatcher<Queued, void> {
  const key = appKeyOf(ctx);
  let batcher = createBatchers.get(key);
  if (batcher === undefined) {
    batcher = new KeyedBatcher<Queued, void>(writeGroup, limits.transactionCreateGroupMax, { gatherTurn: ctx.engine === 'pglite' });
    createBatchers.set(key, batcher);
  }
  return batcher;
}

/** Creates of this app waiting for the next group (tests wait on it; not those being written). */
export function queuedCreatesOf(ctx: AppContext): number {
  return createBatchers.get(appKeyOf(ctx))?.queued ?? 0;
}

/**
 * Writes a create's row: at once in the runner's transaction (with an Idempotency-Key the row commits with the
 * key's answer; queued, it could wait behind a group that waits for the connection that transaction holds), else
 * in the process's next group.
 */
export function writeCreate(ctx: AppContext, row: NewTransaction): Promise<void> {
  if (ctx.db.isTransaction) return insertTransaction(ctx, ctx.db, row);
  return createBatcherOf(ctx).run(lane, { ctx, row });
}

// Group commit of creates (decision 400): the keyless creates that arrive while the process's previous create
// statement runs are written together by the next one, one row each (insertTransactions). A create's cost on PGlite
// is mostly its statement's (executor, commit, the protocol in and out of WebAssembly), not its row's; on PostgreSQL
// the group shares one commit. Nothing waits for a group to fill: a create that finds none running is written at
// once, alone (on PGlite, one turn of the loop later: KeyedBatcher's gatherTurn).
import type { AppContext } from '../../platform/context.ts';
import { perApp } from '../../platform/app-memo.ts';
import { KeyedBatcher, settleEach, type Settled } from '../../platform/keyed-batcher.ts';
import { limits } from '../../limits.ts';
import { insertTransaction, insertTransactions, type NewTransaction } from './transaction-insert.ts';

interface Queued {
  readonly ctx: AppContext;
  readonly row: NewTransaction;
}

/** One lane: PGlite runs one statement at a time anyway, and on PostgreSQL one lane's groups are the biggest. */
const lane = 'creates';

const writeAlone = (item: Queued): Promise<void> => insertTransaction(item.ctx, item.ctx.db, item.row);

/**
 * The statement is atomic: when it fails (a random key taken, the account gone, the connection lost before the
 * commit) no row was written, and each create runs again alone, so only its own request answers its failure.
 */
async function writeGroup(_lane: string, items: readonly Queued[]): Promise<readonly Settled<void>[]> {
  if (items.length === 1) {
    await writeAlone(items[0]!);
    return [{ ok: true, value: undefined }];
  }
  const { ctx } = items[0]!;
  try {
    await insertTransactions(ctx, ctx.db, items.map((item) => item.row));
    return items.map(() => ({ ok: true, value: undefined }));
  } catch {
    return settleEach(items, writeAlone);
  }
}

/** One batcher per app (database). */
const createBatchers = perApp((ctx) => new KeyedBatcher<Queued, void>(writeGroup, limits.transactionCreateGroupMax,
  { gatherTurn: ctx.engine === 'pglite' }));

/** Creates of this app waiting for the next group (tests wait on it; not those being written). */
export function queuedCreatesOf(ctx: AppContext): number {
  return createBatchers.peek(ctx)?.queued ?? 0;
}

/**
 * Writes a create's row: at once in the runner's transaction (with an Idempotency-Key the row commits with the
 * key's answer; queued, it could wait behind a group that waits for the connection that transaction holds), else
 * in the process's next group.
 */
export function writeCreate(ctx: AppContext, row: NewTransaction): Promise<void> {
  if (ctx.db.isTransaction) return insertTransaction(ctx, ctx.db, row);
  return createBatchers.of(ctx).run(lane, { ctx, row });
}

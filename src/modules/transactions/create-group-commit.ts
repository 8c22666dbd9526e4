// Group commit of creates (decision 400): the keyless creates of an account that arrive while its previous create
// statement runs are written together by the next one, one row each (insertTransactions). A create's cost on PGlite
// is mostly its statement's (executor, commit, the protocol in and out of WebAssembly), not its row's; on PostgreSQL
// the group shares one commit. Groups are per account (see queueCreate). Nothing waits for a group to fill: a
// create that finds none running is written at once, alone (on PGlite, one turn of the loop later: gatherTurn). A
// group's requests' audit rows are written by its one statement (decisions 565, 605).
import type { AppContext } from '../../platform/context.ts';
import type { Engine } from '../../platform/db/database.ts';
import {
  KeyedBatcher,
  settleEach,
  settleGroup,
  type Settled,
  batchingFor,
} from '../../platform/work/keyed-batcher.ts';
import { limits } from '../../limits/index.ts';
import { mayRunAlone } from '../../platform/db/row-failure.ts';
import { anyAudited, groupAuditEntries } from '../../platform/audit/grouped.ts';
import {
  insertTransaction,
  insertTransactions,
  insertTransactionsAudited,
  type NewTransaction,
} from './transaction-insert.ts';

interface Queued {
  readonly ctx: AppContext;
  readonly row: NewTransaction;
}

/**
 * Writes a group's rows (one or more) and with them their requests' audit rows, by ONE statement with no
 * transaction around it (decision 605, insertTransactionsAudited). A group with no row to record (a caller with the
 * database, not a request) is its insert alone.
 */
async function writeRows(items: readonly Queued[]): Promise<void> {
  const { ctx } = items[0]!;
  const rows = items.map((item) => item.row);
  if (anyAudited(items.map((item) => item.ctx)))
    return insertTransactionsAudited(
      ctx,
      ctx.db,
      rows,
      groupAuditEntries(items.map((item) => ({ ctx: item.ctx, target: item.row.id }))),
    );
  return rows.length === 1
    ? insertTransaction(ctx, ctx.db, rows[0]!)
    : insertTransactions(ctx, ctx.db, rows);
}

const writeAlone = (item: Queued): Promise<void> => writeRows([item]);

/**
 * A row run again alone after its group failed. When the group's commit went through but its answer was lost (the
 * connection dropped after PostgreSQL committed), the row is already there and inserting it again fails on its
 * key: found by its id and its random payment key, it is this request's row, written once.
 */
async function writeAgain(item: Queued): Promise<void> {
  try {
    await writeAlone(item);
  } catch (error) {
    const found = await item.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('id', '=', item.row.id)
      .where('payment_key', '=', item.row.paymentKey)
      .executeTakeFirst()
      .catch(() => undefined);
    if (found === undefined) throw error;
  }
}

/**
 * The statement is atomic: when it fails on what one row can cause (a random key taken, the account gone, a
 * trigger), on the database not answering or on a deadlock (mayRunAlone, decision 630), no row was written or the
 * commit's answer was lost, and each create runs again alone, so only its own request answers its failure; a
 * commit whose answer was lost is found (writeAgain). Any other failure (an assertion, a bug) is thrown to every
 * create of the group, logged (decision 430).
 */
async function writeGroup(
  _accountId: string,
  items: readonly Queued[],
): Promise<readonly Settled<void>[]> {
  if (items.length === 1) {
    await writeAlone(items[0]!);
    return [{ ok: true, value: undefined }];
  }
  return settleGroup(
    items,
    { noun: 'creates', fallback: 'each runs again alone', logger: items[0]!.ctx.logger },
    {
      together: async () => {
        await writeRows(items);
        return items.map(() => ({ ok: true, value: undefined }));
      },
      retriable: mayRunAlone,
      fallback: () => settleEach(items, writeAgain),
    },
  );
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** The app's group commit of creates, made once by the composition root (src/runtime.ts, decision 475). */
    readonly transactionCreateGroups: TransactionCreateGroups;
  }
}

export type TransactionCreateGroups = KeyedBatcher<Queued, void>;

/** One batcher per app (database). */
export function transactionCreateGroups(engine: Engine): TransactionCreateGroups {
  return new KeyedBatcher<Queued, void>(
    writeGroup,
    limits.transactionCreateGroupMax,
    batchingFor(engine),
  );
}

/** Creates of this app waiting for the next group (tests wait on it; not those being written). */
export function queuedCreatesOf(ctx: AppContext): number {
  return ctx.transactionCreateGroups.queued;
}

/**
 * Queues a create's row for its account's next group (the grouped create; one written in a caller's transaction is
 * inserted there at once, createTransactionInTransaction). One lane an account: a group's foreign-key check waits
 * while another transaction holds its account's row (an escrow flag set, a token rotated), and only that account's
 * creates wait with it, as before groups.
 */
export function queueCreate(ctx: AppContext, row: NewTransaction): Promise<void> {
  return ctx.transactionCreateGroups.run(row.accountId, { ctx, row });
}

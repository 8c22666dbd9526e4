// A payout group shared by accounts (decision 590): the keyless payouts of every account that arrive while a group
// runs go in the next one, so payouts spread over many wallets share its transaction, its statements and its commit
// as one hot wallet's do. A shared group never waits for a lock: it first takes, with SKIP LOCKED, the rows each
// account's payouts write under (the account's row, which their foreign key reads, and its audit chain's head),
// then the account's wallets in the ledger (ledger.lockFree). An account any of whose rows another transaction
// holds, or that has none yet, leaves the group (`evicted`): its payouts go to a lane of its own (payout-groups.ts),
// where they wait for the holder, and no other account waits with them (decision 430).
import { CompiledQuery } from 'kysely';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { mayRunAlone } from '../../platform/db/row-failure.ts';
import type { Tx } from '../../platform/db/types.ts';
import { ledgerKeyId, type LockedAccounts } from '../../platform/ledger/ledger.ts';
import { settleGroup, type Settled } from '../../platform/work/keyed-batcher.ts';
import { writeHeld, type Queued } from './payout-create.ts';
import { accountsOf, type CreateOutcome } from './payout-plan.ts';

/**
 * The accounts of $1 whose row (FOR KEY SHARE, as the payout row's foreign key takes it) and audit chain head (FOR
 * UPDATE, as cobro_audit_append takes it) this transaction could lock at once; those held elsewhere are skipped.
 * An account with no head yet is kept: cobro_audit_append creates it (only a head another transaction is creating
 * at that moment, invisible here, would make it wait, until that one commits).
 */
export const claimAccountsText = `WITH account_rows AS (
    SELECT id FROM accounts WHERE id = ANY($1::text[]) FOR KEY SHARE SKIP LOCKED),
  head_rows AS (
    SELECT chain FROM audit_heads WHERE chain = ANY($1::text[]) FOR UPDATE SKIP LOCKED)
SELECT a.id FROM account_rows AS a
WHERE a.id IN (SELECT chain FROM head_rows) OR NOT EXISTS (SELECT 1 FROM audit_heads AS h WHERE h.chain = a.id)`;

async function claimAccounts(tx: Tx, accountIds: readonly string[]): Promise<ReadonlySet<string>> {
  const { rows } = await tx.executeQuery<{ id: string }>(
    CompiledQuery.raw(claimAccountsText, [accountIds]),
  );
  return new Set(rows.map((r) => r.id));
}

/** A payout that left a shared group: its account's rows were held elsewhere, or not there yet. */
export const evicted = Symbol('evicted');
export type SharedOutcome = CreateOutcome | typeof evicted;

function accountOf(item: Queued): string {
  return item.planned.request.accountId;
}

/** Whether every account of its own that the payout posts to is among those the group locked. */
function covered(item: Queued, held: LockedAccounts): boolean {
  return accountsOf(item.planned)
    .filter((k) => k.owner === accountOf(item))
    .every((k) => held.has(ledgerKeyId(k)));
}

/** The accounts whose payouts stay in the group: rows claimed, and every wallet of each of its payouts locked. */
async function accountsKept(
  tx: Tx,
  items: readonly Queued[],
): Promise<{
  readonly kept: ReadonlySet<string>;
  readonly held: LockedAccounts;
}> {
  const claimed = await claimAccounts(tx, [...new Set(items.map(accountOf))]);
  const held = await items[0]!.ctx.ledger.lockFree(
    tx,
    items
      .filter((item) => claimed.has(accountOf(item)))
      .flatMap((item) => accountsOf(item.planned)),
  );
  const kept = new Set(claimed);
  for (const item of items) if (!covered(item, held)) kept.delete(accountOf(item));
  return { kept, held };
}

/**
 * One shared group in one transaction: the claim, the wallets' locks, writeHeld for the payouts kept (four round
 * trips and one commit for any number of accounts), and `evicted` for the rest. A failure one payout can cause, the
 * database not answering or a deadlock (mayRunAlone, decision 630) rolls the whole group back and sends every payout to its account's lane, where it fails or
 * succeeds as in a group of its account only; any other failure is thrown to every request of the group.
 */
export async function writeSharedGroup(
  _key: string,
  items: readonly Queued[],
): Promise<readonly Settled<SharedOutcome>[]> {
  const { ctx } = items[0]!;
  return settleGroup(
    items,
    {
      noun: 'payouts',
      fallback: "each account's payouts run again in its own lane",
      logger: ctx.logger,
    },
    {
      together: () =>
        inTransaction(ctx.db, async (tx) => {
          const { kept, held } = await accountsKept(tx, items);
          const inGroup = items.filter((item) => kept.has(accountOf(item)));
          const written = inGroup.length === 0 ? [] : await writeHeld(tx, inGroup, held);
          let next = 0;
          return items.map(
            (item): Settled<SharedOutcome> =>
              kept.has(accountOf(item)) ? written[next++]! : { ok: true, value: evicted },
          );
        }),
      retriable: mayRunAlone,
      fallback: async () => items.map(() => ({ ok: true as const, value: evicted })),
    },
  );
}

// The single way money moves: a balanced journal posted inside the caller's database transaction.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Tx } from '../db/types.ts';
import { newId } from '../ids.ts';
import { isNonNegative } from './codes.ts';
import './types.ts';

export interface LedgerKey {
  readonly owner: string;
  readonly code: string;
  readonly currency: string;
}

export interface PostingInput extends LedgerKey {
  readonly amountMinor: bigint;
}

export interface JournalInput {
  readonly kind: string;
  /** The business object the journal belongs to (transaction id, payout id, ...). */
  readonly reference: string;
  readonly memo?: string;
  readonly at: Date;
  readonly postings: readonly PostingInput[];
}

export interface PostedLine extends PostingInput {
  readonly balanceAfterMinor: bigint;
}

export interface PostedJournal {
  readonly id: string;
  readonly lines: readonly PostedLine[];
}

export const postingsPerJournalMax = 64;

function assertBalanced(postings: readonly PostingInput[]): void {
  assert.ok(postings.length >= 2 && postings.length <= postingsPerJournalMax, 'a journal has 2..64 postings');
  const sums = new Map<string, bigint>();
  for (const p of postings) {
    assert.equal(typeof p.amountMinor, 'bigint', 'amounts are bigint minor units');
    assert.ok(p.amountMinor !== 0n, 'a posting moves money');
    assert.match(p.currency, /^[A-Z]{3,6}$/, 'currency is an upper-case code');
    sums.set(p.currency, (sums.get(p.currency) ?? 0n) + p.amountMinor);
  }
  for (const [currency, sum] of sums) assert.equal(sum, 0n, `journal must sum to zero in ${currency}`);
}

/** Creates the ledger account if needed and returns its id, locking its row for the rest of the transaction. */
export async function lockLedgerAccount(tx: Tx, key: LedgerKey): Promise<{ id: bigint; balanceMinor: bigint }> {
  // One round trip: the upsert creates the account if needed, and ON CONFLICT DO UPDATE row-locks an existing
  // one exactly as SELECT ... FOR UPDATE would, until the transaction ends.
  const row = await tx.insertInto('ledger_accounts')
    .values({ owner: key.owner, code: key.code, currency: key.currency, balance_minor: 0n, non_negative: isNonNegative(key.code) })
    .onConflict((oc) => oc.columns(['owner', 'code', 'currency']).doUpdateSet((eb) => ({ non_negative: eb.ref('excluded.non_negative') })))
    .returning(['id', 'balance_minor'])
    .executeTakeFirstOrThrow();
  return { id: BigInt(row.id), balanceMinor: BigInt(row.balance_minor) };
}

/** Current balance without locking (reads). Zero for an account that never moved. */
export async function readBalance(db: Tx | import('../db/types.ts').Db, key: LedgerKey): Promise<bigint> {
  const row = await db.selectFrom('ledger_accounts').select('balance_minor')
    .where('owner', '=', key.owner).where('code', '=', key.code).where('currency', '=', key.currency)
    .executeTakeFirst();
  return row === undefined ? 0n : BigInt(row.balance_minor);
}

/**
 * Posts a balanced journal. Accounts are locked in a fixed order (owner, code, currency) so concurrent journals
 * touching the same accounts cannot deadlock. A non-negative account going below zero is a bug in the caller,
 * which must check funds under lockLedgerAccount first: the assertion (and the CHECK constraint) stop it.
 */
export async function postJournal(tx: Tx, journal: JournalInput): Promise<PostedJournal> {
  assertBalanced(journal.postings);
  const id = newId('jr', 20);
  await tx.insertInto('journal_entries')
    .values({ id, kind: journal.kind, reference: journal.reference, memo: journal.memo ?? '', created_at: journal.at })
    .execute();
  const keyOf = (p: LedgerKey) => `${p.owner}\u0000${p.code}\u0000${p.currency}`;
  const ordered = [...new Set(journal.postings.map(keyOf))].sort();
  const accounts = new Map<string, bigint>();
  for (const k of ordered) {
    const [owner, code, currency] = k.split('\u0000') as [string, string, string];
    accounts.set(k, (await lockLedgerAccount(tx, { owner, code, currency })).id);
  }
  const lines: PostedLine[] = [];
  const rows: { journal_id: string; ledger_account_id: bigint; currency: string; amount_minor: bigint; balance_after_minor: bigint }[] = [];
  for (const p of journal.postings) {
    const accountId = accounts.get(keyOf(p));
    assert.ok(accountId !== undefined);
    const updated = await tx.updateTable('ledger_accounts')
      .set({ balance_minor: sql<bigint>`balance_minor + ${p.amountMinor}` })
      .where('id', '=', accountId)
      .returning(['balance_minor'])
      .executeTakeFirstOrThrow();
    const balanceAfterMinor = BigInt(updated.balance_minor);
    assert.ok(!isNonNegative(p.code) || balanceAfterMinor >= 0n, `ledger account ${p.owner}/${p.code} would go negative`);
    rows.push({ journal_id: id, ledger_account_id: accountId, currency: p.currency, amount_minor: p.amountMinor, balance_after_minor: balanceAfterMinor });
    lines.push({ ...p, balanceAfterMinor });
  }
  await tx.insertInto('postings').values(rows).execute();
  return { id, lines };
}

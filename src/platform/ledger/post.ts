// The SQL under the Ledger interface (ledger.ts): a balanced journal posted inside the caller's database
// transaction, and the account row locks, always taken in ledgerLockOrder. Modules use ctx.ledger, never this file.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Tx } from '../db/types.ts';
import { newId } from '../ids.ts';
import { isNonNegative, SYSTEM_OWNER } from './codes.ts';
import type { JournalKind } from './kinds.ts';
import './types.ts';
import { limits } from '../../limits.ts';

export interface LedgerKey {
  readonly owner: string;
  readonly code: string;
  readonly currency: string;
}

export interface PostingInput extends LedgerKey {
  readonly amountMinor: bigint;
}

export interface JournalInput {
  readonly kind: JournalKind;
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

function assertBalanced(postings: readonly PostingInput[]): void {
  assert.ok(postings.length >= 2 && postings.length <= limits.postingsPerJournalMax, 'a journal has 2..64 postings');
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

const keyOf = (p: LedgerKey) => `${p.owner}\u0000${p.code}\u0000${p.currency}`;

/**
 * The ledger's one lock order (docs/ledger.md): the accounts of merchants, clients and beneficiaries by owner,
 * code and currency, then the system's accounts by code and currency. System accounts are the hottest rows (every
 * payment touches processor clearing), so they are held for the shortest time, and last as decision 060 requires.
 */
export function ledgerLockOrder(a: LedgerKey, b: LedgerKey): number {
  const systemA = a.owner === SYSTEM_OWNER ? 1 : 0;
  const systemB = b.owner === SYSTEM_OWNER ? 1 : 0;
  if (systemA !== systemB) return systemA - systemB;
  const ka = keyOf(a);
  const kb = keyOf(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * Locks every distinct account of `keys` in ledgerLockOrder, creating those that never moved, and returns each
 * one's id and balance by key. Locking an account this transaction already holds costs one round trip, no wait.
 */
/** Locked accounts by ledgerKeyId, with the balance read when each was locked. */
export type LockedAccounts = ReadonlyMap<string, { readonly id: bigint; readonly balanceMinor: bigint }>;

export async function lockLedgerAccounts(tx: Tx, keys: readonly LedgerKey[]): Promise<LockedAccounts> {
  const distinct = new Map<string, LedgerKey>();
  for (const k of keys) distinct.set(keyOf(k), { owner: k.owner, code: k.code, currency: k.currency });
  const locked = new Map<string, { id: bigint; balanceMinor: bigint }>();
  for (const key of [...distinct.values()].sort(ledgerLockOrder)) locked.set(keyOf(key), await lockLedgerAccount(tx, key));
  return locked;
}

export function ledgerKeyId(key: LedgerKey): string {
  return keyOf(key);
}

/**
 * Posts a balanced journal, locking its accounts in ledgerLockOrder so concurrent journals touching the same
 * accounts cannot deadlock. A non-negative account going below zero is a bug in the caller, which must check
 * funds under a lock first (Ledger.hold, reserve, take): the assertion (and the CHECK constraint) stop it.
 */
export async function postJournal(tx: Tx, journal: JournalInput, heldIds: LockedAccounts = new Map()): Promise<PostedJournal> {
  assertBalanced(journal.postings);
  const id = newId('jr', 20);
  await tx.insertInto('journal_entries')
    .values({ id, kind: journal.kind, reference: journal.reference, memo: journal.memo ?? '', created_at: journal.at })
    .execute();
  // Accounts the same ledger call already locked (a funds check) are not locked again: they all sort before the
  // journal's other accounts (sql-ledger.ts holdForCheck), so the order holds and no round trip is added.
  const locked = await lockLedgerAccounts(tx, journal.postings.filter((p) => !heldIds.has(keyOf(p))));
  const accounts = new Map([...heldIds, ...locked].map(([k, v]) => [k, v.id]));
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

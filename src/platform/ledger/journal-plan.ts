// Planning journals to write (journal-statement.ts writes them in one statement): each line with the balance after
// it, from balances read under lock, and the same journals as rows.
import assert from 'node:assert/strict';
import {
  assertBalanced,
  derivedAccountId,
  isDerived,
  keyOf,
  lockLedgerAccounts,
  type DerivedIds,
  type JournalInput,
  type LockedAccounts,
  type PostedJournal,
  type PostedLine,
  type PostingInput,
} from './post.ts';
import type { Tx } from '../db/types.ts';
import { newId } from '../ids/ids.ts';
import { isNonNegative } from './codes.ts';
import './types.ts';
import { limits } from '../../limits/index.ts';

/**
 * Journals ready to write: each line with the balance after it (from the balances read under lock), and the same
 * journals as data (`rows`), which journalRowsOf turns into the columns one statement binds.
 */
export interface PlannedJournals {
  readonly posted: readonly PostedJournal[];
  /** The locked accounts with their balances once the journals are written: what a next journal of the same transaction starts from. */
  readonly heldAfter: LockedAccounts;
  readonly rows: PlannedRows;
}

interface HeaderRow {
  readonly id: string;
  readonly kind: string;
  readonly reference: string;
  readonly memo: string;
  readonly at: Date;
}

interface PostingRow {
  readonly journalId: string;
  readonly accountId: bigint;
  readonly currency: string;
  readonly amountMinor: bigint;
  readonly balanceAfterMinor: bigint | null;
}

interface PlannedRows {
  readonly headers: readonly HeaderRow[];
  readonly postings: readonly PostingRow[];
  readonly deltas: ReadonlyMap<bigint, bigint>;
  /** Each balance-keeping account's last running balance: what the statement must leave it holding. */
  readonly runningAfter: ReadonlyMap<bigint, bigint>;
}

function assertPostable(
  journals: readonly JournalInput[],
  journalsMax: number,
): readonly PostingInput[] {
  assert.ok(
    journals.length >= 1 && journals.length <= journalsMax,
    `one statement writes 1..${journalsMax} journals`,
  );
  for (const j of journals) assertBalanced(j.postings);
  const postings = journals.flatMap((j) => j.postings);
  for (const p of postings) {
    // A derived account has no locked balance to check: one that must stay non-negative may only receive money.
    assert.ok(
      !isDerived(p) || !isNonNegative(p.code) || p.amountMinor > 0n,
      `derived account ${p.code} only receives money`,
    );
  }
  return postings;
}

/**
 * Plans balanced journals on accounts the caller locked (`heldIds`, from a funds check) or that this call locks
 * now, in one round trip and in ledgerLockOrder (so concurrent journals cannot deadlock). Derived accounts are
 * neither locked nor updated. Balances run from one journal to the next, so several journals of one business
 * event (a reservation and its immediate outcome) are written by one statement. A non-negative account going
 * below zero is a bug in the caller, which must check funds under a lock first (Ledger.hold, reserve, take): the
 * assertion (and the CHECK constraint) stop it.
 */
export async function planJournals(
  tx: Tx,
  journals: readonly JournalInput[],
  heldIds: LockedAccounts = new Map(),
  derivedIds: DerivedIds = new Map(),
  journalsMax: number = limits.journalsPerStatementMax,
): Promise<PlannedJournals> {
  const postings = assertPostable(journals, journalsMax);
  // Accounts the same ledger call already locked (a funds check locks the whole journal's accounts in one
  // statement, sql-ledger.ts holdForCheck) are not locked again, so no round trip is added.
  const locked = await lockLedgerAccounts(
    tx,
    postings.filter((p) => !isDerived(p) && !heldIds.has(keyOf(p))),
  );
  const accounts = new Map<string, { id: bigint; balanceMinor: bigint }>([...heldIds, ...locked]);
  for (const p of postings) {
    if (isDerived(p) && !accounts.has(keyOf(p)))
      accounts.set(keyOf(p), { id: await derivedAccountId(tx, p, derivedIds), balanceMinor: 0n });
  }
  const running = new Map<string, bigint>();
  const deltas = new Map<bigint, bigint>();
  const posted: PostedJournal[] = [];
  const headers: HeaderRow[] = [];
  const rows: PostingRow[] = [];
  for (const journal of journals) {
    const id = newId('jr', 20);
    const lines: PostedLine[] = [];
    for (const p of journal.postings) {
      const account = accounts.get(keyOf(p));
      assert.ok(account !== undefined);
      let balanceAfterMinor: bigint | null = null;
      if (!isDerived(p)) {
        balanceAfterMinor = (running.get(keyOf(p)) ?? account.balanceMinor) + p.amountMinor;
        running.set(keyOf(p), balanceAfterMinor);
        deltas.set(account.id, (deltas.get(account.id) ?? 0n) + p.amountMinor);
        assert.ok(
          !isNonNegative(p.code) || balanceAfterMinor >= 0n,
          `ledger account ${p.owner}/${p.code} would go negative`,
        );
      }
      rows.push({
        journalId: id,
        accountId: account.id,
        currency: p.currency,
        amountMinor: p.amountMinor,
        balanceAfterMinor,
      });
      lines.push({ ...p, balanceAfterMinor });
    }
    headers.push({
      id,
      kind: journal.kind,
      reference: journal.reference,
      memo: journal.memo ?? '',
      at: journal.at,
    });
    posted.push({ id, lines });
  }
  const derivedKeys = new Set(postings.filter(isDerived).map(keyOf));
  const heldAfter = new Map<string, { id: bigint; balanceMinor: bigint }>();
  const runningAfter = new Map<bigint, bigint>();
  for (const [key, account] of accounts) {
    if (derivedKeys.has(key)) continue;
    heldAfter.set(key, { id: account.id, balanceMinor: running.get(key) ?? account.balanceMinor });
    const after = running.get(key);
    if (after !== undefined) runningAfter.set(account.id, after);
  }
  return { posted, heldAfter, rows: { headers, postings: rows, deltas, runningAfter } };
}

// The SQL under the Ledger interface (ledger.ts): balanced journals planned inside the caller's database
// transaction (journal-statement.ts writes them), and the account row locks, always taken in ledgerLockOrder.
// Modules use ctx.ledger, never this file.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { StatementText } from '../db/statement-text.ts';
import type { Tx } from '../db/types.ts';
import { newId } from '../ids/ids.ts';
import { isNonNegative, SYSTEM_OWNER } from './codes.ts';
import type { JournalKind } from './kinds.ts';
import './types.ts';
import { limits } from '../../limits/index.ts';

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

interface PostedLine extends PostingInput {
  /** The account's balance after this line; null on a derived account (isDerived), which keeps none. */
  readonly balanceAfterMinor: bigint | null;
}

export interface PostedJournal {
  readonly id: string;
  readonly lines: readonly PostedLine[];
}

function assertBalanced(postings: readonly PostingInput[]): void {
  assert.ok(
    postings.length >= 2 && postings.length <= limits.postingsPerJournalMax,
    'a journal has 2..64 postings',
  );
  const sums = new Map<string, bigint>();
  for (const p of postings) {
    assert.equal(typeof p.amountMinor, 'bigint', 'amounts are bigint minor units');
    assert.ok(p.amountMinor !== 0n, 'a posting moves money');
    assert.match(p.currency, /^[A-Z]{3,6}$/, 'currency is an upper-case code');
    sums.set(p.currency, (sums.get(p.currency) ?? 0n) + p.amountMinor);
  }
  for (const [currency, sum] of sums)
    assert.equal(sum, 0n, `journal must sum to zero in ${currency}`);
}

/** Current balance without locking (reads). Zero for an account that never moved. */
export async function readBalance(
  db: Tx | import('../db/types.ts').Db,
  key: LedgerKey,
): Promise<bigint> {
  if (isDerived(key)) {
    // A derived account keeps no cached balance (decision 130): its balance is the sum of its postings.
    const row = await sql<{ total: string | null }>`
      SELECT SUM(p.amount_minor)::text AS total FROM ledger_accounts a JOIN postings p ON p.ledger_account_id = a.id
      WHERE a.owner = ${key.owner} AND a.code = ${key.code} AND a.currency = ${key.currency}`.execute(
      db,
    );
    return BigInt(row.rows[0]?.total ?? '0');
  }
  const row = await db
    .selectFrom('ledger_accounts')
    .select('balance_minor')
    .where('owner', '=', key.owner)
    .where('code', '=', key.code)
    .where('currency', '=', key.currency)
    .executeTakeFirst();
  return row === undefined ? 0n : BigInt(row.balance_minor);
}

/** Ledger.postedTo: the sums of one kind's postings to one owner's account, by reference and currency. */
export async function readPostedTo(
  db: Tx | import('../db/types.ts').Db,
  query: { kind: string; owner: string; code: string; references: readonly string[] },
): Promise<readonly { reference: string; currency: string; amountMinor: bigint }[]> {
  if (query.references.length === 0) return [];
  const { rows } = await sql<{ reference: string; currency: string; total: string }>`
    SELECT j.reference, la.currency, SUM(p.amount_minor)::text AS total
    FROM journal_entries j
      JOIN postings p ON p.journal_id = j.id
      JOIN ledger_accounts la ON la.id = p.ledger_account_id
    WHERE j.reference = ANY(${query.references}::text[]) AND j.kind = ${query.kind}
      AND la.owner = ${query.owner} AND la.code = ${query.code}
    GROUP BY j.reference, la.currency`.execute(db);
  return rows.map((r) => ({
    reference: r.reference,
    currency: r.currency,
    amountMinor: BigInt(r.total),
  }));
}

/**
 * The system's shared accounts (processor clearing, bank clearing, fees, ...) are derived (decision 130): no row
 * is locked or updated when they move, so unrelated merchants never queue behind them; their balance is the sum
 * of their postings (readBalance, verifyLedger). Only accounts someone can owe or be owed keep a locked balance.
 */
export function isDerived(key: LedgerKey): boolean {
  return key.owner === SYSTEM_OWNER;
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

/** Locked accounts by ledgerKeyId, with the balance read when each was locked. */
export type LockedAccounts = ReadonlyMap<
  string,
  { readonly id: bigint; readonly balanceMinor: bigint }
>;

/**
 * Locks every distinct account of `keys` in ledgerLockOrder, creating those that never moved, and returns each
 * one's id and balance by key, in one round trip: a multi-row upsert whose ON CONFLICT DO UPDATE row-locks each
 * existing account exactly as SELECT ... FOR UPDATE would, in the order of its VALUES. Derived (system) accounts
 * are never locked: pass only accounts that keep a balance.
 */
export async function lockLedgerAccounts(
  tx: Tx,
  keys: readonly LedgerKey[],
): Promise<LockedAccounts> {
  const distinct = new Map<string, LedgerKey>();
  for (const k of keys) {
    assert.ok(!isDerived(k), 'derived accounts are never locked');
    distinct.set(keyOf(k), { owner: k.owner, code: k.code, currency: k.currency });
  }
  const locked = new Map<string, { id: bigint; balanceMinor: bigint }>();
  if (distinct.size === 0) return locked;
  // Written as text (decision 290): the same for every lock of as many accounts, so it is prepared once.
  const statement = new StatementText();
  const values = [...distinct.values()]
    .sort(ledgerLockOrder)
    .map(
      (k) =>
        `(${statement.param(k.owner)}, ${statement.param(k.code)}, ${statement.param(k.currency)}, 0, ${statement.param(isNonNegative(k.code))})`,
    );
  const { rows } = await tx.executeQuery<{
    id: string;
    owner: string;
    code: string;
    currency: string;
    balance_minor: string;
  }>(
    statement.compiled(
      `INSERT INTO ledger_accounts (owner, code, currency, balance_minor, non_negative) VALUES ${values.join(', ')}
    ON CONFLICT (owner, code, currency) DO UPDATE SET non_negative = excluded.non_negative
    RETURNING id, owner, code, currency, balance_minor`,
    ),
  );
  for (const r of rows)
    locked.set(keyOf(r), { id: BigInt(r.id), balanceMinor: BigInt(r.balance_minor) });
  assert.equal(locked.size, distinct.size);
  return locked;
}

/**
 * Ids of derived accounts, by key, for one Ledger (one database). Filled only from committed rows (a plain read),
 * never from an account this transaction created, so a rollback cannot leave a dangling id behind.
 */
export type DerivedIds = Map<string, bigint>;

async function derivedAccountId(tx: Tx, key: LedgerKey, cache: DerivedIds): Promise<bigint> {
  const cached = cache.get(keyOf(key));
  if (cached !== undefined) return cached;
  const found = await tx
    .selectFrom('ledger_accounts')
    .select('id')
    .where('owner', '=', key.owner)
    .where('code', '=', key.code)
    .where('currency', '=', key.currency)
    .executeTakeFirst();
  if (found !== undefined) {
    cache.set(keyOf(key), BigInt(found.id));
    return BigInt(found.id);
  }
  // First movement ever of this account: create it (the upsert waits for a concurrent creator; no later journal does).
  const created = await tx
    .insertInto('ledger_accounts')
    .values({
      owner: key.owner,
      code: key.code,
      currency: key.currency,
      balance_minor: 0n,
      non_negative: isNonNegative(key.code),
    })
    .onConflict((oc) =>
      oc
        .columns(['owner', 'code', 'currency'])
        .doUpdateSet((eb) => ({ non_negative: eb.ref('excluded.non_negative') })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return BigInt(created.id);
}

export function ledgerKeyId(key: LedgerKey): string {
  return keyOf(key);
}

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

function assertPostable(journals: readonly JournalInput[]): readonly PostingInput[] {
  assert.ok(
    journals.length >= 1 && journals.length <= limits.journalsPerStatementMax,
    'one statement writes 1..4 journals',
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
): Promise<PlannedJournals> {
  const postings = assertPostable(journals);
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

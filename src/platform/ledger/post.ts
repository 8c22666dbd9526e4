// The SQL under the Ledger interface (ledger.ts): balanced journals planned inside the caller's database
// transaction (journal-statement.ts writes them), and the account row locks, always taken in ledgerLockOrder.
// Modules use ctx.ledger, never this file.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { StatementText } from '../db/statement-text.ts';
import type { Tx } from '../db/types.ts';
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

export interface PostedLine extends PostingInput {
  /** The account's balance after this line; null on a derived account (isDerived), which keeps none. */
  readonly balanceAfterMinor: bigint | null;
}

export interface PostedJournal {
  readonly id: string;
  readonly lines: readonly PostedLine[];
}

export function assertBalanced(postings: readonly PostingInput[]): void {
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

/** Ledger.balances: balance-keeping accounts' cached balances in one read, in the order given (0 when absent). */
export async function readBalances(
  db: Tx | import('../db/types.ts').Db,
  keys: readonly LedgerKey[],
): Promise<readonly bigint[]> {
  for (const k of keys) assert.ok(!isDerived(k), 'a derived account has no cached balance');
  if (keys.length === 0) return [];
  const { rows } = await sql<{
    owner: string;
    code: string;
    currency: string;
    balance_minor: string;
  }>`
    SELECT a.owner, a.code, a.currency, a.balance_minor::text AS balance_minor FROM ledger_accounts a
    JOIN unnest(${keys.map((k) => k.owner)}::text[], ${keys.map((k) => k.code)}::text[],
      ${keys.map((k) => k.currency)}::text[]) AS k(owner, code, currency)
      ON a.owner = k.owner AND a.code = k.code AND a.currency = k.currency`.execute(db);
  const found = new Map(rows.map((r) => [keyOf(r), BigInt(r.balance_minor)]));
  return keys.map((k) => found.get(keyOf(k)) ?? 0n);
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

export const keyOf = (p: LedgerKey) => `${p.owner}\u0000${p.code}\u0000${p.currency}`;

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

/** The distinct accounts of `keys` by key; a derived (system) account is never locked. */
function lockableKeys(keys: readonly LedgerKey[]): Map<string, LedgerKey> {
  const distinct = new Map<string, LedgerKey>();
  for (const k of keys) {
    assert.ok(!isDerived(k), 'derived accounts are never locked');
    distinct.set(keyOf(k), { owner: k.owner, code: k.code, currency: k.currency });
  }
  return distinct;
}

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
  const distinct = lockableKeys(keys);
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
 * Locks the accounts of `keys` that no other transaction holds and that exist, in one round trip, and returns those
 * it locked (id and balance by key); it never waits and creates nothing. A held or missing account is simply left
 * out, so its caller (a payout group shared by accounts, decision 590) sends that account's work where waiting
 * stalls no one else. SKIP LOCKED never waits, so the order of its rows cannot deadlock.
 */
export async function lockFreeLedgerAccounts(
  tx: Tx,
  keys: readonly LedgerKey[],
): Promise<LockedAccounts> {
  const distinct = lockableKeys(keys);
  const locked = new Map<string, { id: bigint; balanceMinor: bigint }>();
  if (distinct.size === 0) return locked;
  const wanted = [...distinct.values()];
  const { rows } = await sql<{
    id: string;
    owner: string;
    code: string;
    currency: string;
    balance_minor: string;
  }>`SELECT a.id, a.owner, a.code, a.currency, a.balance_minor FROM ledger_accounts AS a
    JOIN unnest(${wanted.map((k) => k.owner)}::text[], ${wanted.map((k) => k.code)}::text[],
      ${wanted.map((k) => k.currency)}::text[]) AS k(owner, code, currency)
      ON a.owner = k.owner AND a.code = k.code AND a.currency = k.currency
    FOR UPDATE OF a SKIP LOCKED`.execute(tx);
  for (const r of rows)
    locked.set(keyOf(r), { id: BigInt(r.id), balanceMinor: BigInt(r.balance_minor) });
  return locked;
}

/**
 * Ids of derived accounts, by key, for one Ledger (one database). Filled only from rows written before the reading
 * transaction's first write, never from an account this transaction (or one of its savepoints) created, so a
 * rollback cannot leave a dangling id behind.
 */
export type DerivedIds = Map<string, bigint>;

export async function derivedAccountId(tx: Tx, key: LedgerKey, cache: DerivedIds): Promise<bigint> {
  const cached = cache.get(keyOf(key));
  if (cached !== undefined) return cached;
  // `committed`: the row was written before this transaction's first write, so no rollback of it (or of one of
  // its savepoints) can take the row away. A row this transaction created (its xmin our xid or a later one of our
  // subtransactions) is used but not cached. `age` compares xids modulo wraparound.
  const found = await tx
    .selectFrom('ledger_accounts')
    .select([
      'id',
      sql<boolean>`pg_current_xact_id_if_assigned() IS NULL
        OR age(xmin) > age(pg_current_xact_id_if_assigned()::xid)`.as('committed'),
    ])
    .where('owner', '=', key.owner)
    .where('code', '=', key.code)
    .where('currency', '=', key.currency)
    .executeTakeFirst();
  if (found !== undefined) {
    if (found.committed) cache.set(keyOf(key), BigInt(found.id));
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

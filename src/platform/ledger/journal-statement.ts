// The statement that writes balanced journals, its text whole (decision 471), and its parameters: the journals
// planned by journal-plan.ts as rows, one array a column (JournalRows). Modules use ctx.ledger, never this file.
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import type { Tx } from '../db/types.ts';
import type { DerivedIds, JournalInput, LockedAccounts, PostedJournal } from './post.ts';
import { planJournals, type PlannedJournals } from './journal-plan.ts';

/**
 * The rows a statement writes into the ledger's tables, one array a column, bound as they are: the journals'
 * headers, their postings, and each balance-keeping account's update (its id, the sum of its deltas, and the last
 * running balance its postings record, which cobro_running_balance asserts, decision 431). Every array is one
 * parameter, so a statement's text is the same whatever the number of journals (decision 370).
 */
export interface JournalRows {
  readonly journalId: readonly string[];
  readonly journalKind: readonly string[];
  readonly journalReference: readonly string[];
  readonly journalMemo: readonly string[];
  readonly journalCreatedAt: readonly Date[];
  readonly postingJournalId: readonly string[];
  readonly postingAccountId: readonly bigint[];
  readonly postingCurrency: readonly string[];
  readonly postingAmountMinor: readonly bigint[];
  readonly postingBalanceAfterMinor: readonly (bigint | null)[];
  readonly accountId: readonly bigint[];
  readonly accountDeltaMinor: readonly bigint[];
  readonly accountRunningAfterMinor: readonly bigint[];
}

/** JournalRows's thirteen arrays in their order, as a statement of the ledger's column order binds them. */
export function journalRowsParams(rows: JournalRows): readonly unknown[] {
  return [
    rows.journalId,
    rows.journalKind,
    rows.journalReference,
    rows.journalMemo,
    rows.journalCreatedAt,
    rows.postingJournalId,
    rows.postingAccountId,
    rows.postingCurrency,
    rows.postingAmountMinor,
    rows.postingBalanceAfterMinor,
    rows.accountId,
    rows.accountDeltaMinor,
    rows.accountRunningAfterMinor,
  ];
}

/**
 * The rows of several plans written by one statement (a group commit's payouts, decision 330), each plan made from
 * the heldAfter of the one before it: their journals and postings in order, and each account's balance updated
 * ONCE by the sum of its deltas (a statement cannot update one row twice), to the last plan's running balance.
 */
export function journalRowsOf(plans: readonly PlannedJournals[]): JournalRows {
  assert.ok(plans.length >= 1);
  const deltas = new Map<bigint, bigint>();
  const runningAfter = new Map<bigint, bigint>();
  for (const plan of plans) {
    for (const [accountId, d] of plan.rows.deltas)
      deltas.set(accountId, (deltas.get(accountId) ?? 0n) + d);
    for (const [accountId, after] of plan.rows.runningAfter) runningAfter.set(accountId, after);
  }
  const headers = plans.flatMap((p) => p.rows.headers);
  const postings = plans.flatMap((p) => p.rows.postings);
  const updates = [...deltas].filter(([, d]) => d !== 0n);
  return {
    journalId: headers.map((h) => h.id),
    journalKind: headers.map((h) => h.kind),
    journalReference: headers.map((h) => h.reference),
    journalMemo: headers.map((h) => h.memo),
    journalCreatedAt: headers.map((h) => h.at),
    postingJournalId: postings.map((r) => r.journalId),
    postingAccountId: postings.map((r) => r.accountId),
    postingCurrency: postings.map((r) => r.currency),
    postingAmountMinor: postings.map((r) => r.amountMinor),
    postingBalanceAfterMinor: postings.map((r) => r.balanceAfterMinor),
    accountId: updates.map(([id]) => id),
    accountDeltaMinor: updates.map(([, d]) => d),
    accountRunningAfterMinor: updates.map(([id]) => runningAfter.get(id)!),
  };
}

/**
 * A balanced journal's statement (Ledger.post and every journal posted alone: a payment's capture and fee, a
 * settlement, a refund...), whole: the headers, each account's balance (`id = ANY(...)` rather than a join with
 * the unnested ids: planned without statistics, PGlite never analyzes, the join hashed a scan of every ledger
 * account), and the postings. Its parameters are journalRowsParams's. Each account's update asserts that its new
 * balance is the last running balance its postings record (cobro_running_balance, decision 431): a balance read
 * before the lock, or moved since, fails the statement instead of writing running balances that lie.
 */
export const postJournalText = `WITH ledger_j AS (
    INSERT INTO journal_entries (id, kind, reference, memo, created_at)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS h(id, kind, reference, memo, created_at)),
  ledger_u AS (
    UPDATE ledger_accounts a SET balance_minor = cobro_running_balance(a.id,
      a.balance_minor + ($12::bigint[])[array_position($11::bigint[], a.id)], ($13::bigint[])[array_position($11::bigint[], a.id)])
    WHERE a.id = ANY($11::bigint[])),
  ledger_p AS (
    INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    SELECT * FROM unnest($6::text[], $7::bigint[], $8::text[], $9::bigint[], $10::bigint[]) AS p(journal_id, ledger_account_id, currency, amount_minor, balance_after_minor))
SELECT 1`;

/**
 * Posts balanced journals of one event (planJournals: one lock of their accounts) in one more round trip: one
 * statement writes them all.
 */
export async function postJournals(
  tx: Tx,
  journals: readonly JournalInput[],
  heldIds: LockedAccounts = new Map(),
  derivedIds: DerivedIds = new Map(),
  journalsMax?: number,
): Promise<readonly PostedJournal[]> {
  const planned = await planJournals(tx, journals, heldIds, derivedIds, journalsMax);
  await tx.executeQuery(
    CompiledQuery.raw(postJournalText, [...journalRowsParams(journalRowsOf([planned]))]),
  );
  return planned.posted;
}

/** Posts a balanced journal (planJournals) in one more round trip: one statement writes it all. */
export async function postJournal(
  tx: Tx,
  journal: JournalInput,
  heldIds: LockedAccounts = new Map(),
  derivedIds: DerivedIds = new Map(),
): Promise<PostedJournal> {
  return (await postJournals(tx, [journal], heldIds, derivedIds))[0]!;
}

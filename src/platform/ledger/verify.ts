// Recomputes every balance from the postings, and every posting's running balance: the proof that no money was
// created or lost, and that each account's history adds up line by line.
import { sql } from 'kysely';
import type { Db } from '../db/types.ts';
import { SYSTEM_OWNER } from './codes.ts';
import './types.ts';

export type VerifyResult =
  | { ok: true; accounts: number; journals: number }
  | { ok: false; fault: string };

/** The ledger's checks in order; each answers its first fault, or null. */
const checks: readonly ((db: Db) => Promise<string | null>)[] = [
  unbalancedJournal,
  cachedBalanceDrift,
  runningBalanceDrift,
  negativeAccount,
  unbalancedCurrency,
];

export async function verifyLedger(db: Db): Promise<VerifyResult> {
  for (const check of checks) {
    const fault = await check(db);
    if (fault !== null) return { ok: false, fault };
  }
  const counts = await sql<{ accounts: string; journals: string }>`
    SELECT (SELECT COUNT(*) FROM ledger_accounts)::text AS accounts, (SELECT COUNT(*) FROM journal_entries)::text AS journals`.execute(
    db,
  );
  const c = counts.rows[0];
  return { ok: true, accounts: Number(c?.accounts ?? 0), journals: Number(c?.journals ?? 0) };
}

/** A journal whose postings do not sum to zero in a currency. */
async function unbalancedJournal(db: Db): Promise<string | null> {
  const unbalanced = await sql<{ journal_id: string; currency: string; total: string }>`
    SELECT journal_id, currency, SUM(amount_minor)::text AS total FROM postings
    GROUP BY journal_id, currency HAVING SUM(amount_minor) <> 0 ORDER BY journal_id LIMIT 1`.execute(
    db,
  );
  const u = unbalanced.rows[0];
  if (u !== undefined) return `journal ${u.journal_id} sums to ${u.total} ${u.currency}, not zero`;
  return null;
}

/** An account whose cached balance is not the sum of its postings. */
async function cachedBalanceDrift(db: Db): Promise<string | null> {
  // A derived (system) account keeps no cached balance (decision 130): it must hold 0 and no running balances.
  const drift = await sql<{
    owner: string;
    code: string;
    currency: string;
    cached: string;
    computed: string;
  }>`
    SELECT a.owner, a.code, a.currency, a.balance_minor::text AS cached, COALESCE(SUM(p.amount_minor), 0)::text AS computed
    FROM ledger_accounts a LEFT JOIN postings p ON p.ledger_account_id = a.id
    GROUP BY a.id
    HAVING CASE WHEN a.owner = ${SYSTEM_OWNER} THEN a.balance_minor <> 0 OR COUNT(p.balance_after_minor) > 0
      ELSE a.balance_minor <> COALESCE(SUM(p.amount_minor), 0) OR COUNT(p.id) <> COUNT(p.balance_after_minor) END
    ORDER BY a.id LIMIT 1`.execute(db);
  const d = drift.rows[0];
  if (d !== undefined) {
    return `ledger account ${d.owner}/${d.code}/${d.currency} holds ${d.cached} but its postings sum to ${d.computed}`;
  }
  return null;
}

/** A posting whose recorded running balance is not the sum of its account's postings up to it. */
async function runningBalanceDrift(db: Db): Promise<string | null> {
  // Every running balance (decision 431): a posting of a balance-keeping account records the sum of that account's
  // postings up to it, in the order they were written (their ids).
  const running = await sql<{
    id: string;
    owner: string;
    code: string;
    currency: string;
    recorded: string | null;
    computed: string;
  }>`
    SELECT r.id::text AS id, a.owner, a.code, a.currency, r.balance_after_minor::text AS recorded, r.computed::text AS computed
    FROM (SELECT p.id, p.ledger_account_id, p.balance_after_minor,
        SUM(p.amount_minor) OVER (PARTITION BY p.ledger_account_id ORDER BY p.id) AS computed FROM postings p) r
      JOIN ledger_accounts a ON a.id = r.ledger_account_id
    WHERE a.owner <> ${SYSTEM_OWNER} AND r.balance_after_minor IS DISTINCT FROM r.computed
    ORDER BY r.id LIMIT 1`.execute(db);
  const r = running.rows[0];
  if (r !== undefined) {
    return `posting ${r.id} of ledger account ${r.owner}/${r.code}/${r.currency} records a running balance of ${r.recorded ?? 'null'} but the postings up to it sum to ${r.computed}`;
  }
  return null;
}

/** A non-negative account (a wallet) whose postings sum below zero. */
async function negativeAccount(db: Db): Promise<string | null> {
  const negative = await sql<{ owner: string; code: string; currency: string; balance: string }>`
    SELECT a.owner, a.code, a.currency, COALESCE(SUM(p.amount_minor), 0)::text AS balance
    FROM ledger_accounts a LEFT JOIN postings p ON p.ledger_account_id = a.id
    WHERE a.non_negative GROUP BY a.id HAVING COALESCE(SUM(p.amount_minor), 0) < 0 ORDER BY a.id LIMIT 1`.execute(
    db,
  );
  const n = negative.rows[0];
  if (n !== undefined)
    return `ledger account ${n.owner}/${n.code}/${n.currency} is negative (${n.balance})`;
  return null;
}

/** A currency whose balances do not sum to zero. */
async function unbalancedCurrency(db: Db): Promise<string | null> {
  const totals = await sql<{ currency: string; total: string }>`
    SELECT currency, SUM(amount_minor)::text AS total FROM postings GROUP BY currency HAVING SUM(amount_minor) <> 0 LIMIT 1`.execute(
    db,
  );
  const t = totals.rows[0];
  if (t !== undefined) return `all ${t.currency} balances sum to ${t.total}, not zero`;
  return null;
}

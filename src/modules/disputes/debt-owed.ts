// What a merchant owes the service after chargebacks (decision 1015), as the merchant's dashboard shows it: the
// total is the ledger's `dispute_debt` balance (decision 530, the balance owedDebt and the collections read), and
// the disputes it comes from are read from the ledger's postings too: each `dispute.opened` journal's posting on
// `dispute_debt` is what that dispute added to the debt. Nothing is counted beside the ledger.
//
// The debt is one balance; which dispute a payment paid is a presentation rule: payments go to the oldest debt
// first, so what is still owed is the newest disputes' part. A won dispute is never listed: its win gave back at
// least its own debt (decision 530: the held money pays the debt first, and it is at least what the opening
// borrowed), so the total never exceeds what the disputes not won added, and the newest-first split covers it
// exactly. Read without a lock: a debt paid or opened a moment later shows on the next read.
import { sql } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import { journalKinds, ledgerCodes } from '../../platform/ledger/ledger.ts';
import type { DisputeStatus } from './states.ts';

interface DebtDispute {
  readonly id: string;
  readonly transactionId: string;
  readonly reason: string;
  readonly status: DisputeStatus;
  readonly createdAt: Date;
  /** What the dispute's opening added to the debt. */
  readonly debtMinor: bigint;
  /** What of it is still owed (payments go to the oldest debt first). */
  readonly owedMinor: bigint;
}

export interface OwedDebt {
  readonly currency: string;
  /** The ledger's `dispute_debt` balance, negated: what the account owes now. */
  readonly owedMinor: bigint;
  /** The disputes it comes from, newest first, at most `disputesMax`. */
  readonly disputes: readonly DebtDispute[];
  /** How many disputes the debt comes from, the ones not listed included. */
  readonly disputesCount: number;
}

interface Row {
  currency: string;
  total_minor: string;
  id: string | null;
  transaction_id: string | null;
  reason: string | null;
  status: DisputeStatus | null;
  created_at: Date | string | null;
  debt_minor: string | null;
  still_minor: string | null;
  owing_count: string | null;
}

/** Every currency the account owes in (none when it owes nothing), each with the disputes its debt comes from. */
export async function owedDebtByDispute(
  db: DbOrTx,
  accountId: string,
  disputesMax: number,
): Promise<readonly OwedDebt[]> {
  const { rows } = await sql<Row>`
    WITH owed AS (
      SELECT a.id AS ledger_account_id, a.currency, -a.balance_minor AS total_minor
      FROM ledger_accounts a
      WHERE a.owner = ${accountId} AND a.code = ${ledgerCodes.disputeDebt} AND a.balance_minor < 0
    ),
    opened AS (
      SELECT o.currency, o.total_minor, p.id AS posting_id, d.id, d.transaction_id, d.reason, d.status,
        d.created_at, -p.amount_minor AS debt_minor,
        SUM(-p.amount_minor) OVER (PARTITION BY o.currency ORDER BY p.id DESC) + p.amount_minor AS newer_minor
      FROM owed o
      JOIN postings p ON p.ledger_account_id = o.ledger_account_id AND p.amount_minor < 0
      JOIN journal_entries j ON j.id = p.journal_id AND j.kind = ${journalKinds.disputeOpened}
      JOIN disputes d ON d.id = j.reference AND d.account_id = ${accountId}
      WHERE d.status <> 'won'
    ),
    owing AS (
      SELECT opened.*, LEAST(debt_minor, total_minor - newer_minor) AS still_minor,
        ROW_NUMBER() OVER (PARTITION BY currency ORDER BY posting_id DESC) AS rank,
        COUNT(*) OVER (PARTITION BY currency) AS owing_count
      FROM opened
      WHERE newer_minor < total_minor
    )
    SELECT o.currency, o.total_minor::text AS total_minor, w.id, w.transaction_id, w.reason, w.status,
      w.created_at, w.debt_minor::text AS debt_minor, w.still_minor::text AS still_minor,
      w.owing_count::text AS owing_count
    FROM owed o
    LEFT JOIN owing w ON w.currency = o.currency AND w.rank <= ${disputesMax}
    ORDER BY o.currency, w.rank`.execute(db);
  const byCurrency = new Map<
    string,
    { owedMinor: bigint; disputes: DebtDispute[]; count: number }
  >();
  for (const r of rows) {
    let entry = byCurrency.get(r.currency);
    if (entry === undefined) {
      entry = { owedMinor: BigInt(r.total_minor), disputes: [], count: 0 };
      byCurrency.set(r.currency, entry);
    }
    if (r.id === null) continue;
    entry.count = Number(r.owing_count);
    entry.disputes.push({
      id: r.id,
      transactionId: r.transaction_id!,
      reason: r.reason!,
      status: r.status!,
      createdAt: new Date(r.created_at!),
      debtMinor: BigInt(r.debt_minor!),
      owedMinor: BigInt(r.still_minor!),
    });
  }
  return [...byCurrency].map(([currency, e]) => ({
    currency,
    owedMinor: e.owedMinor,
    disputes: e.disputes,
    disputesCount: e.count,
  }));
}

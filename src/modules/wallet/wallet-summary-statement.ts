// The Wallet summary in one statement (decision 585): the balance from the ledger account's row, the newest
// movement's id, and a page of movements by wallet_movements_account (account_id, currency, seq) with the payout each
// payout movement names joined in, one row a movement. Every column comes as the answer shows it (amounts as text,
// the account type as an integer), so JavaScript only formats the times and the account number (views.ts). The text
// is asserted whole in test/modules/wallet/wallet-summary-statement.test.ts.
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import { ledgerCodes } from '../../platform/ledger/ledger.ts';

/** The wallet's balance and newest movement, on every row of the answer. */
interface SummaryHead {
  /** The wallet_available balance as text ('0' before the account's first movement). */
  readonly balance: string;
  /** The newest movement of the currency, whatever the page: `current_id`; null for a wallet without movements. */
  readonly current_id: string | null;
}

/** One movement of the page, with its payout's fields (all null when it names none). */
export interface SummaryMovement {
  /** The keyset of a page's next chunk (text: a bigint). */
  readonly seq: string;
  readonly id: string;
  readonly order: string;
  readonly subject: string;
  readonly created_at: Date;
  readonly income_expense: string;
  readonly status: string;
  readonly amount: string;
  readonly actual_amount: string;
  readonly origin_liquidation: string | null;
  readonly currency: string;
  /** The payout's id; null when the movement names none, and so are the other payout_ columns. */
  readonly payout_id: string | null;
  readonly payout_phone: string;
  readonly payout_email: string;
  readonly payout_subject: string;
  readonly payout_amount: string;
  readonly payout_accountbank_rut: string;
  readonly payout_accountbank_name: string;
  readonly payout_accountbank_type: number;
  readonly payout_accountbank_num: string;
  readonly payout_accountbank_sbif: string;
  readonly payout_status: string;
  readonly payout_updated_at: Date;
}

/** An empty page answers one row with the head and every movement column null. */
type SummaryRow = SummaryHead & (SummaryMovement | { readonly seq: null });

/**
 * $1 account, $2 currency, $3 the wallet's ledger code, $4 movements at most, $5 movements skipped, $6 the keyset
 * bound: only movements older than seq $6 (a page's later chunk starts after its previous chunk's last movement; the
 * first chunk passes the largest bigint). The page is a LATERAL subquery joined to the one-row head, so an empty
 * page still answers the balance. The payout movements are the kinds a payout or withdrawal and their reversals
 * write; their reference is the payout's id.
 */
export const summaryPageText = `SELECT b.balance, b.current_id, m.seq::text AS seq, m.id, m."order", m.subject, m.created_at,
  m.income_expense, m.status, m.amount_minor::text AS amount, m.balance_after_minor::text AS actual_amount,
  m.origin_liquidation, m.currency, p.id AS payout_id, p.phone AS payout_phone, p.email AS payout_email,
  p.subject AS payout_subject, p.amount_minor::text AS payout_amount, p.accountbank_rut AS payout_accountbank_rut,
  p.accountbank_name AS payout_accountbank_name, p.accountbank_type::integer AS payout_accountbank_type,
  p.accountbank_num AS payout_accountbank_num, p.accountbank_sbif AS payout_accountbank_sbif,
  p.status AS payout_status, p.updated_at AS payout_updated_at
FROM (SELECT
    COALESCE((SELECT a.balance_minor FROM ledger_accounts a
      WHERE a.owner = $1 AND a.code = $3 AND a.currency = $2), 0)::text AS balance,
    (SELECT w.id FROM wallet_movements w WHERE w.account_id = $1 AND w.currency = $2
      ORDER BY w.seq DESC LIMIT 1) AS current_id) b
LEFT JOIN LATERAL (SELECT * FROM wallet_movements w
    WHERE w.account_id = $1 AND w.currency = $2 AND w.seq < $6::bigint
    ORDER BY w.seq DESC LIMIT $4 OFFSET $5) m ON true
LEFT JOIN payouts p ON p.id = m.reference AND p.account_id = $1
  AND m.kind IN ('payout', 'withdrawal', 'payout_reversal', 'withdrawal_reversal')
ORDER BY m.seq DESC`;

/** The keyset bound of a page's first chunk: every movement is older than it. */
export const seqBeforeAll = '9223372036854775807';

export interface SummaryChunk {
  readonly accountId: string;
  readonly currency: string;
  readonly limit: number;
  readonly offset: number;
  /** Movements older than this seq only (text, a bigint); seqBeforeAll for a page's first chunk. */
  readonly seqBefore: string;
}

export interface SummaryAnswer {
  readonly balance: string;
  readonly currentId: string | null;
  readonly movements: SummaryMovement[];
}

/** A chunk of the summary's page, newest first, with the balance and the newest movement's id. */
export async function readSummaryChunk(db: DbOrTx, chunk: SummaryChunk): Promise<SummaryAnswer> {
  const { rows } = await db.executeQuery<SummaryRow>(
    CompiledQuery.raw(summaryPageText, [
      chunk.accountId,
      chunk.currency,
      ledgerCodes.walletAvailable,
      chunk.limit,
      chunk.offset,
      chunk.seqBefore,
    ]),
  );
  const head = rows[0];
  assert.ok(head !== undefined, 'the head subquery answers one row');
  return {
    balance: head.balance,
    currentId: head.current_id,
    movements: head.seq === null ? [] : (rows as SummaryMovement[]),
  };
}

// The Wallet summary in one statement (decision 585): cobro_wallet_summary (migration 0420, redefined whole with a
// BIGINT limit and offset by migration 0480, decision 680) answers the balance from the ledger account's row, the
// newest movement's id, and a page of movements by wallet_movements_account (account_id, currency, seq) with the
// payout each payout movement names joined in, one row a movement. Every column comes as the answer shows it (amounts
// as text, the account type as an integer), so JavaScript only formats the times and the account number (views.ts).
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';

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

/** The function's parameters: account, currency, movements at most, movements skipped, keyset bound (seq). */
const summaryCallText = 'SELECT * FROM cobro_wallet_summary($1, $2, $3, $4, $5)';

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
    CompiledQuery.raw(summaryCallText, [
      chunk.accountId,
      chunk.currency,
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

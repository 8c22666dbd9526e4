// A settlement chunk's one write statement, whole (decision 561): the ledger's rows planned by ctx.ledger.plan
// (each account's settlement journal and any chargeback debt it pays), the run's batches (opened, or grown when an
// earlier chunk of the run opened them), the settled sales' rows and their wallet movements, in one round trip
// after the chunk's claim and its accounts' locks. test/modules/transactions/settlement-statement.test.ts asserts
// the text; every column goes as one array parameter, so the text is the same whatever the chunk's size.
import { CompiledQuery } from 'kysely';
import type { Tx } from '../../platform/db/types.ts';
import { journalRowsParams, type JournalRows } from '../../platform/ledger/ledger.ts';

/** The batches a chunk opens or grows, one array a column; a grown batch adds these counts and sums to its own. */
interface BatchColumns {
  readonly id: readonly string[];
  readonly accountId: readonly string[];
  readonly currency: readonly string[];
  readonly createdAt: readonly Date[];
  readonly count: readonly number[];
  readonly grossMinor: readonly bigint[];
  readonly feeMinor: readonly bigint[];
  readonly netMinor: readonly bigint[];
}

/** The sales the chunk settles: each with its batch and its account's time of settlement. */
interface SettledColumns {
  readonly id: readonly string[];
  readonly batchId: readonly string[];
  readonly at: readonly Date[];
}

/** The wallet movements, in the wallet's history order (their seq follows it). */
interface MovementColumns {
  readonly id: readonly string[];
  readonly accountId: readonly string[];
  readonly currency: readonly string[];
  readonly order: readonly string[];
  readonly subject: readonly string[];
  readonly incomeExpense: readonly ('income' | 'expense')[];
  readonly amountMinor: readonly bigint[];
  readonly balanceAfterMinor: readonly bigint[];
  readonly kind: readonly string[];
  /** The sale: both the movement's reference and its origin_liquidation. */
  readonly saleId: readonly string[];
  readonly journalId: readonly string[];
  readonly at: readonly Date[];
}

/**
 * $1-$13: the ledger's rows (journalRowsParams); $14-$21: the batches; $22-$24: the settled sales; $25-$36: the
 * movements. The sales were claimed FOR UPDATE by this transaction with `settled_at IS NULL`, so each is settled once.
 */
export const settlementStatementText = `WITH ledger_j AS (
    INSERT INTO journal_entries (id, kind, reference, memo, created_at)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS h(id, kind, reference, memo, created_at)),
  ledger_u AS (
    UPDATE ledger_accounts a SET balance_minor = cobro_running_balance(a.id,
      a.balance_minor + ($12::bigint[])[array_position($11::bigint[], a.id)], ($13::bigint[])[array_position($11::bigint[], a.id)])
    WHERE a.id = ANY($11::bigint[])),
  ledger_p AS (
    INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    SELECT * FROM unnest($6::text[], $7::bigint[], $8::text[], $9::bigint[], $10::bigint[]) AS p(journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)),
  batches AS (
    INSERT INTO settlement_batches (id, account_id, currency, created_at, transaction_count, gross_minor, fee_minor, net_minor)
    SELECT * FROM unnest($14::text[], $15::text[], $16::text[], $17::timestamptz[], $18::int[], $19::bigint[], $20::bigint[], $21::bigint[])
    ON CONFLICT (id) DO UPDATE SET transaction_count = settlement_batches.transaction_count + excluded.transaction_count,
      gross_minor = settlement_batches.gross_minor + excluded.gross_minor,
      fee_minor = settlement_batches.fee_minor + excluded.fee_minor,
      net_minor = settlement_batches.net_minor + excluded.net_minor),
  settled AS (
    UPDATE transactions t SET settled_at = s.at, updated_at = s.at, settlement_batch_id = s.batch_id
    FROM unnest($22::text[], $23::text[], $24::timestamptz[]) AS s(id, batch_id, at)
    WHERE t.id = s.id AND t.settled_at IS NULL
    RETURNING t.id)
INSERT INTO wallet_movements (id, account_id, currency, "order", subject, income_expense, status, amount_minor,
  balance_after_minor, origin_liquidation, kind, reference, journal_id, created_at)
SELECT m.id, m.account_id, m.currency, m."order", m.subject, m.income_expense, 'current', m.amount_minor,
  m.balance_after_minor, m.sale_id, m.kind, m.sale_id, m.journal_id, m.at
FROM unnest($25::text[], $26::text[], $27::text[], $28::text[], $29::text[], $30::text[], $31::bigint[], $32::bigint[],
  $33::text[], $34::text[], $35::text[], $36::timestamptz[])
  WITH ORDINALITY AS m(id, account_id, currency, "order", subject, income_expense, amount_minor, balance_after_minor,
    kind, sale_id, journal_id, at, n)
ORDER BY m.n`;

export interface SettlementStatement {
  /** Null when the chunk moves no money (every sale's net already refunded). */
  readonly ledger: JournalRows | null;
  readonly batches: BatchColumns;
  readonly settled: SettledColumns;
  readonly movements: MovementColumns;
}

const noLedgerRows: JournalRows = {
  journalId: [],
  journalKind: [],
  journalReference: [],
  journalMemo: [],
  journalCreatedAt: [],
  postingJournalId: [],
  postingAccountId: [],
  postingCurrency: [],
  postingAmountMinor: [],
  postingBalanceAfterMinor: [],
  accountId: [],
  accountDeltaMinor: [],
  accountRunningAfterMinor: [],
};

export async function writeSettlementChunk(tx: Tx, s: SettlementStatement): Promise<void> {
  const b = s.batches;
  const m = s.movements;
  await tx.executeQuery(
    CompiledQuery.raw(settlementStatementText, [
      ...journalRowsParams(s.ledger ?? noLedgerRows),
      ...[
        b.id,
        b.accountId,
        b.currency,
        b.createdAt,
        b.count,
        b.grossMinor,
        b.feeMinor,
        b.netMinor,
      ],
      ...[s.settled.id, s.settled.batchId, s.settled.at],
      ...[m.id, m.accountId, m.currency, m.order, m.subject, m.incomeExpense, m.amountMinor],
      ...[m.balanceAfterMinor, m.kind, m.saleId, m.journalId, m.at],
    ]),
  );
}

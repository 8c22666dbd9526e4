// A payout's one write statement, whole (decision 471): the payout row (the gate), the ledger's journals, balances
// and postings planned by ctx.ledger.planReservations, and the wallet movements, in one round trip after the funds
// check took the wallet's lock. Its text is written here once and test/modules/wallet/payout-statement.test.ts
// asserts it; only the values change, so PostgreSQL prepares it once per connection (decision 230). Each column
// goes as one parameter (one array for the ledger's and the movements' rows), so the text is the same whatever
// the number of journals and movements (decision 370). The requests' audit rows go in it too (decision 565). Two
// forms: a payout alone, whose gate skips an order already taken and then writes nothing at all; and a group
// commit's payouts (decision 330), whose rows all go in or the statement fails.
import assert from 'node:assert/strict';
import { CompiledQuery, type Insertable } from 'kysely';
import type { Tx } from '../../platform/db/types.ts';
import { auditColumns, type AuditEntry } from '../../platform/audit/record.ts';
import { journalRowsParams, type JournalRows } from '../../platform/ledger/ledger.ts';
import type { GatedMovementColumns } from './movements.ts';
import type { PayoutRow } from './repository.ts';
import type { PayoutTable } from './types.ts';

/** The columns a new payout row sets (batch_id stays null until a production export), in the order the statements bind them. */
const newPayoutColumns = [
  'id',
  'account_id',
  'kind',
  'order',
  'order_ext',
  'request_hash',
  'currency',
  'amount_minor',
  'email',
  'phone',
  'subject',
  'accountbank_name',
  'accountbank_rut',
  'accountbank_sbif',
  'accountbank_type',
  'accountbank_num',
  'url_notify',
  'additional_parameters',
  'status',
  'reason_rejection',
  'movement_id',
  'due_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof PayoutTable)[];

export type NewPayoutRow = {
  readonly [C in (typeof newPayoutColumns)[number]]: Insertable<PayoutTable>[C];
};

/**
 * A payout alone. $1-$24: the payout's columns; $25-$37: the ledger's rows (journalRowsParams); $38-$44: its
 * movements; $45-$51: its audit row (decision 565; empty arrays when its caller records it, the runner's transaction
 * with an Idempotency-Key). Every write after the gate waits on it: an order already taken inserts no row, and then
 * nothing else. The answer reads `audit`, which is what runs it (a CTE no one reads is not run), after the wallet's
 * lock, so the chain's head is the last lock taken (decision 531).
 */
export const payoutStatementText = `WITH gate AS (
    INSERT INTO payouts ("id", "account_id", "kind", "order", "order_ext", "request_hash", "currency", "amount_minor",
      "email", "phone", "subject", "accountbank_name", "accountbank_rut", "accountbank_sbif", "accountbank_type",
      "accountbank_num", "url_notify", "additional_parameters", "status", "reason_rejection", "movement_id", "due_at",
      "created_at", "updated_at")
    VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::text, $10::text,
      $11::text, $12::text, $13::text, $14::text, $15::text, $16::text, $17::text, $18::text, $19::text, $20::text,
      $21::text, $22::timestamptz, $23::timestamptz, $24::timestamptz)
    ON CONFLICT (account_id, kind, "order") DO NOTHING
    RETURNING *),
  ledger_j AS (
    INSERT INTO journal_entries (id, kind, reference, memo, created_at)
    SELECT * FROM unnest($25::text[], $26::text[], $27::text[], $28::text[], $29::timestamptz[]) AS h(id, kind, reference, memo, created_at)
    WHERE EXISTS (SELECT 1 FROM gate)),
  ledger_u AS (
    UPDATE ledger_accounts a SET balance_minor = cobro_running_balance(a.id,
      a.balance_minor + ($36::bigint[])[array_position($35::bigint[], a.id)], ($37::bigint[])[array_position($35::bigint[], a.id)])
    WHERE a.id = ANY($35::bigint[]) AND EXISTS (SELECT 1 FROM gate)),
  ledger_p AS (
    INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    SELECT * FROM unnest($30::text[], $31::bigint[], $32::text[], $33::bigint[], $34::bigint[]) AS p(journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    WHERE EXISTS (SELECT 1 FROM gate)),
  movements AS (
    INSERT INTO wallet_movements (id, account_id, currency, "order", subject, income_expense, status, amount_minor,
      balance_after_minor, origin_liquidation, kind, reference, journal_id, created_at)
    SELECT v.id, g.account_id, g.currency, g."order", g.subject, v.income_expense, v.status, v.amount_minor,
      v.balance_after_minor, NULL, v.kind, g.id, v.journal_id, g.created_at
    FROM unnest($38::text[], $39::text[], $40::text[], $41::bigint[], $42::bigint[], $43::text[], $44::text[])
      WITH ORDINALITY AS v(id, income_expense, status, amount_minor, balance_after_minor, kind, journal_id, n)
    CROSS JOIN gate AS g
    ORDER BY v.n),
  audit AS (
    SELECT cobro_audit_append(g.account_id, $45::text[], $46::text[], $47::text[], $48::text[], $49::text[],
      $50::text[], $51::timestamptz[]) FROM gate AS g)
SELECT gate.* FROM gate, audit`;

/**
 * A group's payouts (decision 330). $1-$24: the payouts' columns, one array each; $25-$37: the ledger's rows;
 * $38-$45: the movements, each naming its payout's id ($38); $46-$53: the audit rows of the group's requests, each
 * with its chain (decision 565), appended by cobro_audit_append_chains (migration 0430), each chain's rows in their
 * order: a group may hold several accounts' payouts (decision 590), whose chains' heads its claim already holds. No ON CONFLICT: an order already taken fails the
 * statement, and the caller runs each payout again alone (decision 430). It answers every row, or only their ids
 * when the caller reads nothing else of them (sparing the database and the driver the rest of each row).
 */
export function payoutGroupStatementText(answer: 'rows' | 'ids'): string {
  return `WITH gates AS (
    INSERT INTO payouts ("id", "account_id", "kind", "order", "order_ext", "request_hash", "currency", "amount_minor",
      "email", "phone", "subject", "accountbank_name", "accountbank_rut", "accountbank_sbif", "accountbank_type",
      "accountbank_num", "url_notify", "additional_parameters", "status", "reason_rejection", "movement_id", "due_at",
      "created_at", "updated_at")
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[],
      $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
      $18::text[], $19::text[], $20::text[], $21::text[], $22::timestamptz[], $23::timestamptz[], $24::timestamptz[])
    RETURNING *),
  ledger_j AS (
    INSERT INTO journal_entries (id, kind, reference, memo, created_at)
    SELECT * FROM unnest($25::text[], $26::text[], $27::text[], $28::text[], $29::timestamptz[]) AS h(id, kind, reference, memo, created_at)),
  ledger_u AS (
    UPDATE ledger_accounts a SET balance_minor = cobro_running_balance(a.id,
      a.balance_minor + ($36::bigint[])[array_position($35::bigint[], a.id)], ($37::bigint[])[array_position($35::bigint[], a.id)])
    WHERE a.id = ANY($35::bigint[])),
  ledger_p AS (
    INSERT INTO postings (journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)
    SELECT * FROM unnest($30::text[], $31::bigint[], $32::text[], $33::bigint[], $34::bigint[]) AS p(journal_id, ledger_account_id, currency, amount_minor, balance_after_minor)),
  movements AS (
    INSERT INTO wallet_movements (id, account_id, currency, "order", subject, income_expense, status, amount_minor,
      balance_after_minor, origin_liquidation, kind, reference, journal_id, created_at)
    SELECT v.id, g.account_id, g.currency, g."order", g.subject, v.income_expense, v.status, v.amount_minor,
      v.balance_after_minor, NULL, v.kind, g.id, v.journal_id, g.created_at
    FROM unnest($38::text[], $39::text[], $40::text[], $41::text[], $42::bigint[], $43::bigint[], $44::text[], $45::text[])
      WITH ORDINALITY AS v(row_id, id, income_expense, status, amount_minor, balance_after_minor, kind, journal_id, n)
    JOIN gates AS g ON g.id = v.row_id
    ORDER BY v.n),
  audit AS (
    SELECT cobro_audit_append_chains($46::text[], $47::text[], $48::text[], $49::text[],
      $50::text[], $51::text[], $52::text[], $53::timestamptz[]) AS chains)
SELECT ${answer === 'rows' ? 'gates.*' : 'gates.id'} FROM gates, audit`;
}

const groupRowsText = payoutGroupStatementText('rows');
const groupIdsText = payoutGroupStatementText('ids');

function movementParams(m: GatedMovementColumns): readonly unknown[] {
  return [m.id, m.incomeExpense, m.status, m.amountMinor, m.balanceAfterMinor, m.kind, m.journalId];
}

/** Writes one payout with its ledger rows and movements; undefined (and nothing written) when its order was taken. */
export async function writePayoutStatement(
  tx: Tx,
  row: NewPayoutRow,
  ledgerRows: JournalRows,
  movements: GatedMovementColumns,
  audit: readonly AuditEntry[],
): Promise<PayoutRow | undefined> {
  const params = [
    ...newPayoutColumns.map((c) => row[c]),
    ...journalRowsParams(ledgerRows),
    ...movementParams(movements),
    ...auditColumns(audit),
  ];
  const result = await tx.executeQuery<PayoutRow>(CompiledQuery.raw(payoutStatementText, params));
  return result.rows[0];
}

/** Writes a group's payouts with their ledger rows and movements, all or none; their rows, or only their ids. */
export async function writePayoutGroupStatement(
  tx: Tx,
  rows: readonly NewPayoutRow[],
  ledgerRows: JournalRows,
  movements: GatedMovementColumns,
  audit: readonly AuditEntry[],
  answer: 'rows' | 'ids',
): Promise<readonly Record<string, unknown>[]> {
  const params = [
    ...newPayoutColumns.map((c) => rows.map((row) => row[c])),
    ...journalRowsParams(ledgerRows),
    movements.rowId,
    ...movementParams(movements),
    audit.map((e) => e.chain),
    ...auditColumns(audit),
  ];
  const result = await tx.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(answer === 'rows' ? groupRowsText : groupIdsText, params),
  );
  assert.equal(result.rows.length, rows.length, 'a group statement inserted every row');
  return result.rows;
}

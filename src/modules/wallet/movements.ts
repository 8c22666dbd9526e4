// The wallet movement log (seed "Wallet movement"): one row per change of a merchant's available balance,
// written in the same transaction as the journal that moved the money.
import assert from 'node:assert/strict';
import type { Tx, Int8, Timestamp } from '../../platform/db/types.ts';
import type { Generated } from 'kysely';
import { rowsFrom, type RowsColumn, type StatementText } from '../../platform/db/statement-text.ts';
import { newId } from '../../platform/ids.ts';
import { ledgerCodes, type PostedJournal } from '../../platform/ledger/ledger.ts';

export interface WalletMovementTable {
  seq: Generated<bigint>;
  id: string;
  account_id: string;
  currency: string;
  order: string;
  subject: string;
  income_expense: 'income' | 'expense';
  status: 'current' | 'reversed';
  amount_minor: Int8;
  balance_after_minor: Int8;
  origin_liquidation: string | null;
  kind: string;
  reference: string;
  journal_id: string;
  created_at: Timestamp;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    wallet_movements: WalletMovementTable;
  }
}

/** A movement's id, made before its row when another row must name it first (a payout names its movement). */
export function newMovementId(): string {
  return newId('wa', 16);
}

export interface MovementInput {
  /** Made with newMovementId when the caller needs it before the row exists; a new one otherwise. */
  readonly id?: string;
  readonly accountId: string;
  readonly currency: string;
  readonly order: string;
  readonly subject: string;
  /** What kind of business event moved the money: `payout`, `withdrawal`, `settlement`, `adjustment`, ... */
  readonly kind: string;
  /** The business object's id (payout id, transaction id, ...). */
  readonly reference: string;
  readonly originLiquidation: string | null;
  readonly journal: PostedJournal;
  readonly at: Date;
}

/** The journal's one posting on the account's available wallet balance, which a movement records. */
function walletLine(accountId: string, currency: string, journal: PostedJournal): { amountMinor: bigint; balanceAfterMinor: bigint } {
  const lines = journal.lines.filter((l) => l.owner === accountId && l.code === ledgerCodes.walletAvailable && l.currency === currency);
  assert.equal(lines.length, 1, 'a wallet movement follows exactly one wallet_available posting');
  const line = lines[0]!;
  assert.ok(line.balanceAfterMinor !== null, 'a wallet account keeps its balance');
  return { amountMinor: line.amountMinor, balanceAfterMinor: line.balanceAfterMinor };
}

export interface GatedMovement {
  readonly id: string;
  readonly kind: string;
  readonly journal: PostedJournal;
  readonly status: 'current' | 'reversed';
}

/** A payout row a statement is inserting (its `id`) and its movements. */
export interface GateMovements {
  readonly rowId: string;
  readonly accountId: string;
  readonly currency: string;
  readonly movements: readonly GatedMovement[];
}

/**
 * The movements of the payout rows the CTE `gatesCte` is inserting (Ledger.reserveWith, reserveGroup), in the given
 * order, each taking account, currency, order, subject, reference and time from its row: nothing for a row that
 * was not inserted. One INSERT for every row, ordered, so their seq (the wallet's history order) follows the
 * journals'. Each column is one array parameter, so the text is the same for any number of rows (decision 370), or
 * one parameter a column for a single row (rowsFrom, decision 390).
 */
export function movementsOfGatesSql(st: StatementText, gatesCte: string, gates: readonly GateMovements[]): string {
  assert.ok(gates.length >= 1);
  const rows = gates.flatMap((gate) => {
    assert.ok(gate.movements.length >= 1);
    return gate.movements.map((m) => {
      const line = walletLine(gate.accountId, gate.currency, m.journal);
      return { rowId: gate.rowId, movement: m, line };
    });
  });
  const column = (type: RowsColumn['type'], f: (r: (typeof rows)[number]) => unknown): RowsColumn => ({ type, values: rows.map(f) });
  const source = rowsFrom(st, [
    column('text', (r) => r.rowId), column('text', (r) => r.movement.id),
    column('text', (r) => (r.line.amountMinor > 0n ? 'income' : 'expense')), column('text', (r) => r.movement.status),
    column('bigint', (r) => (r.line.amountMinor > 0n ? r.line.amountMinor : -r.line.amountMinor)),
    column('bigint', (r) => r.line.balanceAfterMinor), column('text', (r) => r.movement.kind), column('text', (r) => r.movement.journal.id),
  ], 'v', ['row_id', 'id', 'income_expense', 'status', 'amount_minor', 'balance_after_minor', 'kind', 'journal_id', 'n'], true);
  return `INSERT INTO wallet_movements (id, account_id, currency, "order", subject, income_expense, status, amount_minor, balance_after_minor, origin_liquidation, kind, reference, journal_id, created_at)
    SELECT v.id, g.account_id, g.currency, g."order", g.subject, v.income_expense, v.status, v.amount_minor, v.balance_after_minor, NULL, v.kind, g.id, v.journal_id, g.created_at
    FROM ${source}
    JOIN ${gatesCte} AS g ON g.id = v.row_id
    ORDER BY v.n`;
}

/**
 * Appends the movement for the journal's effect on the account's available wallet balance. The journal must
 * touch wallet_available of that account and currency exactly once.
 */
export async function appendWalletMovement(tx: Tx, input: MovementInput): Promise<{ id: string }> {
  const line = walletLine(input.accountId, input.currency, input.journal);
  const id = input.id ?? newMovementId();
  await tx.insertInto('wallet_movements').values({
    id,
    account_id: input.accountId,
    currency: input.currency,
    order: input.order,
    subject: input.subject,
    income_expense: line.amountMinor > 0n ? 'income' : 'expense',
    status: 'current',
    amount_minor: line.amountMinor > 0n ? line.amountMinor : -line.amountMinor,
    balance_after_minor: line.balanceAfterMinor,
    origin_liquidation: input.originLiquidation,
    kind: input.kind,
    reference: input.reference,
    journal_id: input.journal.id,
    created_at: input.at,
  }).execute();
  return { id };
}

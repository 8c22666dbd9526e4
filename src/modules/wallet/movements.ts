// The wallet movement log (seed "Wallet movement"): one row per change of a merchant's available balance,
// written in the same transaction as the journal that moved the money.
import assert from 'node:assert/strict';
import type { Tx, Int8, Timestamp } from '../../platform/db/types.ts';
import type { Generated } from 'kysely';
import { newId } from '../../platform/ids/ids.ts';
import { ledgerCodes, type PostedJournal } from '../../platform/ledger/ledger.ts';

interface WalletMovementTable {
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
function walletLine(
  accountId: string,
  currency: string,
  journal: PostedJournal,
): { amountMinor: bigint; balanceAfterMinor: bigint } {
  const lines = journal.lines.filter(
    (l) =>
      l.owner === accountId && l.code === ledgerCodes.walletAvailable && l.currency === currency,
  );
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

/** The movement rows of a payout statement (payout-statement.ts), one array a column, in the order given. */
export interface GatedMovementColumns {
  /** The payout row each belongs to; the statement takes account, currency, order, subject and time from it. */
  readonly rowId: readonly string[];
  readonly id: readonly string[];
  readonly incomeExpense: readonly ('income' | 'expense')[];
  readonly status: readonly ('current' | 'reversed')[];
  readonly amountMinor: readonly bigint[];
  readonly balanceAfterMinor: readonly bigint[];
  readonly kind: readonly string[];
  readonly journalId: readonly string[];
}

/**
 * The movements of payout rows a statement is inserting, in the given order, so their seq (the wallet's history
 * order) follows the journals': each from its journal's one posting on the wallet's available balance.
 */
export function gatedMovementColumns(gates: readonly GateMovements[]): GatedMovementColumns {
  assert.ok(gates.length >= 1);
  const rows = gates.flatMap((gate) => {
    assert.ok(gate.movements.length >= 1);
    return gate.movements.map((m) => ({
      rowId: gate.rowId,
      movement: m,
      line: walletLine(gate.accountId, gate.currency, m.journal),
    }));
  });
  return {
    rowId: rows.map((r) => r.rowId),
    id: rows.map((r) => r.movement.id),
    incomeExpense: rows.map((r) => (r.line.amountMinor > 0n ? 'income' : 'expense')),
    status: rows.map((r) => r.movement.status),
    amountMinor: rows.map((r) =>
      r.line.amountMinor > 0n ? r.line.amountMinor : -r.line.amountMinor,
    ),
    balanceAfterMinor: rows.map((r) => r.line.balanceAfterMinor),
    kind: rows.map((r) => r.movement.kind),
    journalId: rows.map((r) => r.movement.journal.id),
  };
}

/**
 * Appends the movement for the journal's effect on the account's available wallet balance. The journal must
 * touch wallet_available of that account and currency exactly once.
 */
export async function appendWalletMovement(tx: Tx, input: MovementInput): Promise<{ id: string }> {
  const line = walletLine(input.accountId, input.currency, input.journal);
  const id = input.id ?? newMovementId();
  await tx
    .insertInto('wallet_movements')
    .values({
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
    })
    .execute();
  return { id };
}

// A settlement chunk's rows as the statement's columns (settlement-statement.ts): per account and currency, its
// batch, its sales settled, and the wallet movements in history order: each sale's income, then what of it paid
// the merchant's chargeback debt (decision 560), with the wallet's balance running through them from the balance
// read under the wallet's lock, so the last one is the balance the ledger's journals leave.
import type { JournalInput, JournalRows, PostedJournal } from '../../platform/ledger/ledger.ts';
import { newMovementId } from '../wallet/movements.ts';
import { debtSubject, debtTakenMinor } from '../wallet/debt-collection.ts';
import assert from 'node:assert/strict';
import type { TransactionRow } from './repository.ts';
import type { SettlementStatement } from './settlement-statement.ts';

export interface SaleGroup {
  readonly accountId: string;
  readonly currency: string;
  readonly sales: readonly TransactionRow[];
}

/** The sale's net still in pending settlement: what refunds took from it before settlement is gone (docs/refunds.md). */
export function netOf(row: TransactionRow): bigint {
  const netMinor =
    BigInt(row.amount_minor) - BigInt(row.fee_minor ?? 0n) - BigInt(row.refunded_pending_minor);
  assert.ok(netMinor >= 0n, 'refunds never take more than the net before settlement');
  return netMinor;
}

export interface GroupPlan {
  readonly group: SaleGroup;
  readonly at: Date;
  readonly batchId: string;
  /** What the merchant owed the service before this chunk (its debt account locked). */
  readonly owedMinor: bigint;
  /** The wallet's available balance under its lock, before this chunk. */
  readonly walletMinor: bigint;
  /** The settlement journal and, when a debt is owed, the collection journal; none when every net is zero. */
  readonly journals: readonly JournalInput[];
  posted: readonly PostedJournal[];
}

interface MovementRow {
  readonly plan: GroupPlan;
  readonly saleId: string;
  readonly order: string;
  readonly subject: string;
  readonly kind: 'settlement' | 'dispute_debt';
  readonly amountMinor: bigint;
  readonly balanceAfterMinor: bigint;
  readonly journalId: string;
}

function movementsOf(p: GroupPlan): MovementRow[] {
  const rows: MovementRow[] = [];
  let balanceMinor = p.walletMinor;
  let owedMinor = p.owedMinor;
  for (const sale of p.group.sales) {
    const netMinor = netOf(sale);
    if (netMinor === 0n) continue;
    const base = { plan: p, saleId: sale.id, order: sale.order };
    balanceMinor += netMinor;
    rows.push({
      ...base,
      subject: sale.subject,
      kind: 'settlement',
      amountMinor: netMinor,
      balanceAfterMinor: balanceMinor,
      journalId: p.posted[0]!.id,
    });
    const takenMinor = debtTakenMinor(owedMinor, netMinor);
    if (takenMinor === 0n) continue;
    owedMinor -= takenMinor;
    balanceMinor -= takenMinor;
    rows.push({
      ...base,
      subject: debtSubject,
      kind: 'dispute_debt',
      amountMinor: takenMinor,
      balanceAfterMinor: balanceMinor,
      journalId: p.posted[1]!.id,
    });
  }
  return rows;
}

const sum = (values: readonly bigint[]) => values.reduce((a, b) => a + b, 0n);

export function settlementRows(
  plans: readonly GroupPlan[],
  ledger: JournalRows | null,
): SettlementStatement {
  const sales = plans.flatMap((p) => p.group.sales.map((sale) => ({ p, sale })));
  const movements = plans.flatMap(movementsOf);
  const gross = (p: GroupPlan) => sum(p.group.sales.map((s) => BigInt(s.amount_minor)));
  const fee = (p: GroupPlan) => sum(p.group.sales.map((s) => BigInt(s.fee_minor ?? 0n)));
  return {
    ledger,
    batches: {
      id: plans.map((p) => p.batchId),
      accountId: plans.map((p) => p.group.accountId),
      currency: plans.map((p) => p.group.currency),
      createdAt: plans.map((p) => p.at),
      count: plans.map((p) => p.group.sales.length),
      grossMinor: plans.map(gross),
      feeMinor: plans.map(fee),
      netMinor: plans.map((p) => gross(p) - fee(p)),
    },
    settled: {
      id: sales.map(({ sale }) => sale.id),
      batchId: sales.map(({ p }) => p.batchId),
      at: sales.map(({ p }) => p.at),
    },
    movements: {
      id: movements.map(() => newMovementId()),
      accountId: movements.map((m) => m.plan.group.accountId),
      currency: movements.map((m) => m.plan.group.currency),
      order: movements.map((m) => m.order),
      subject: movements.map((m) => m.subject),
      incomeExpense: movements.map((m) => (m.kind === 'settlement' ? 'income' : 'expense')),
      amountMinor: movements.map((m) => m.amountMinor),
      balanceAfterMinor: movements.map((m) => m.balanceAfterMinor),
      kind: movements.map((m) => m.kind),
      saleId: movements.map((m) => m.saleId),
      journalId: movements.map((m) => m.journalId),
      at: movements.map((m) => m.plan.at),
    },
  };
}

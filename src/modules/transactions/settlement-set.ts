// The settlement run's set-based part (decision 561): the due sales that go whole to their merchant's wallet (no
// extension, no settlement hold) settle a chunk at a time, in one database transaction: one settlement journal
// per account and currency (reference: the run's batch), the chargeback debt it pays (decision 560), one wallet
// movement per sale (and per debt payment), the batches and the sales' rows, all written by one statement
// (settlement-statement.ts) after one lock of the chunk's ledger accounts. The other sales of the chunk are
// answered for the per-sale path (settlement.ts), which runs their extension's or hold's own journals.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { newId } from '../../platform/ids/ids.ts';
import {
  journalKinds,
  ledgerCodes,
  ledgerKeyId,
  type JournalInput,
  type JournalRows,
  type LedgerKey,
} from '../../platform/ledger/ledger.ts';
import { extensionOf } from './extension.ts';
import type { TransactionRow } from './repository.ts';
import { RunBatches } from './settlement-batch.ts';
import { netOf, settlementRows, type GroupPlan, type SaleGroup } from './settlement-rows.ts';
import { writeSettlementChunk } from './settlement-statement.ts';
import { debtCollectionJournal, debtTakenMinor } from '../wallet/debt-collection.ts';

export interface ChunkOutcome {
  /** Sales this chunk settled. */
  readonly settledCount: number;
  /** Sales left to the per-sale path: an extension's or a held account's. */
  readonly perSaleIds: readonly string[];
  /** The batches this chunk opened or grew, for the run's RunBatches once it has committed. */
  readonly batches: readonly { accountId: string; currency: string; batchId: string }[];
}

/** The claimed sales that settle whole to their wallet, by account and currency; the rest by id. */
async function partition(ctx: AppContext, tx: Tx, rows: readonly TransactionRow[]) {
  const plain = rows.filter((r) => extensionOf(ctx, r) === null);
  const accountIds = [...new Set(plain.map((r) => r.account_id))];
  const held = new Set<string>();
  for (const hold of ctx.settlementHolds)
    for (const id of await hold.holdsAccounts(ctx, tx, accountIds)) held.add(id);
  const groups = new Map<string, SaleGroup & { sales: TransactionRow[] }>();
  const perSaleIds: string[] = [];
  for (const row of rows) {
    if (extensionOf(ctx, row) !== null || held.has(row.account_id)) {
      perSaleIds.push(row.id);
      continue;
    }
    const groupKey = RunBatches.key(row.account_id, row.currency);
    const group = groups.get(groupKey) ?? {
      accountId: row.account_id,
      currency: row.currency,
      sales: [],
    };
    group.sales.push(row);
    groups.set(groupKey, group);
  }
  return { groups: [...groups.values()], perSaleIds };
}

/** The group's ledger account of `code`: its merchant's, in its currency. */
const ledgerKeyOf = (g: SaleGroup, code: string): LedgerKey => ({
  owner: g.accountId,
  code,
  currency: g.currency,
});

/** Each group's journals: its sales' nets to the wallet, then what of them pays the merchant's chargeback debt. */
function groupJournals(g: SaleGroup, batchId: string, at: Date, owedMinor: bigint): JournalInput[] {
  const netMinor = g.sales.reduce((sum, r) => sum + netOf(r), 0n);
  if (netMinor === 0n) return [];
  const journals: JournalInput[] = [
    {
      kind: journalKinds.transactionSettlement,
      reference: batchId,
      at,
      postings: [
        { ...ledgerKeyOf(g, ledgerCodes.pendingSettlement), amountMinor: -netMinor },
        { ...ledgerKeyOf(g, ledgerCodes.walletAvailable), amountMinor: netMinor },
      ],
    },
  ];
  const takenMinor = debtTakenMinor(owedMinor, netMinor);
  if (takenMinor > 0n)
    journals.push(debtCollectionJournal(g.accountId, g.currency, takenMinor, batchId, at));
  return journals;
}

/**
 * The groups' ledger accounts under one lock, in one round trip after reading whose chargeback debt is owed: the
 * debt's only where it is owed, then each group's pending settlement and wallet.
 */
async function lockGroupAccounts(ctx: AppContext, tx: Tx, groups: readonly SaleGroup[]) {
  const debts = await ctx.ledger.balances(
    tx,
    groups.map((g) => ledgerKeyOf(g, ledgerCodes.disputeDebt)),
  );
  const owing = groups.filter((_g, i) => debts[i]! < 0n);
  return ctx.ledger.lock(tx, [
    ...owing.map((g) => ledgerKeyOf(g, ledgerCodes.disputeDebt)),
    ...groups.flatMap((g) => [
      ledgerKeyOf(g, ledgerCodes.pendingSettlement),
      ledgerKeyOf(g, ledgerCodes.walletAvailable),
    ]),
  ]);
}

/** Locks the groups' accounts and plans their journals, as the ledger's rows for the chunk's one statement. */
async function planGroups(
  ctx: AppContext,
  tx: Tx,
  groups: readonly SaleGroup[],
  batches: RunBatches,
): Promise<{ plans: GroupPlan[]; ledger: JournalRows | null }> {
  const locked = await lockGroupAccounts(ctx, tx, groups);
  const plans: GroupPlan[] = [];
  // One read of an account's time for all its currencies' groups.
  const atByAccount = new Map<string, Date>();
  for (const g of groups) {
    const at = atByAccount.get(g.accountId) ?? (await ctx.accountClock.now(g.accountId, tx));
    atByAccount.set(g.accountId, at);
    const balanceOf = (code: string) =>
      locked.get(ledgerKeyId(ledgerKeyOf(g, code)))?.balanceMinor ?? 0n;
    const debtMinor = balanceOf(ledgerCodes.disputeDebt);
    const owedMinor = debtMinor < 0n ? -debtMinor : 0n;
    const batchId = batches.openFor(g.accountId, g.currency) ?? newId('stb', 17);
    plans.push({
      group: g,
      at,
      batchId,
      owedMinor,
      walletMinor: balanceOf(ledgerCodes.walletAvailable),
      journals: groupJournals(g, batchId, at, owedMinor),
      posted: [],
    });
  }
  const journals = plans.flatMap((p) => p.journals);
  if (journals.length === 0) return { plans, ledger: null };
  const planned = await ctx.ledger.plan(tx, journals, locked);
  // The ledger answers the journals posted in the order given: each plan takes back its own, for its movements.
  let next = 0;
  for (const p of plans) {
    p.posted = planned.posted.slice(next, next + p.journals.length);
    next += p.journals.length;
  }
  return { plans, ledger: planned.rows };
}

/** Settles the plain sales among `rows` (claimed by this transaction) by one statement. */
export async function settleClaimed(
  ctx: AppContext,
  tx: Tx,
  rows: readonly TransactionRow[],
  batches: RunBatches,
): Promise<ChunkOutcome> {
  const { groups, perSaleIds } = await partition(ctx, tx, rows);
  if (groups.length === 0) return { settledCount: 0, perSaleIds, batches: [] };
  const { plans, ledger } = await planGroups(ctx, tx, groups, batches);
  await writeSettlementChunk(tx, settlementRows(plans, ledger));
  return {
    settledCount: groups.reduce((n, g) => n + g.sales.length, 0),
    perSaleIds,
    batches: plans.map((p) => ({
      accountId: p.group.accountId,
      currency: p.group.currency,
      batchId: p.batchId,
    })),
  };
}

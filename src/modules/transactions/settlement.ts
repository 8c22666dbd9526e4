// The settlement run (supplement §4.3, decision 561), declared as the `transaction-settlement` due work (module.ts),
// so the sandbox clock advances it. On the availability date a paid transaction's net leaves the merchant's pending
// settlement. The run claims the due sales a chunk at a time (settleChunk): the plain ones (no extension, no hold)
// settle together by one statement (settlement-set.ts); each other one settles alone here (settleOne), its net to
// whoever settlement-allocation.ts names (an extension's clients or beneficiaries get theirs by their module's
// journal first), as one journal, with a wallet movement (income, origin_liquidation the transaction id) for the
// merchant's wallet. Each run records what it settled as batches (settlement-batch.ts).
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { journalKinds, ledgerCodes } from '../../platform/ledger/ledger.ts';
import { appendWalletMovement } from '../wallet/movements.ts';
import { collectDisputeDebt, lockOwedDebt } from '../wallet/debt-collection.ts';
import { allocateNet, type NetSettlement } from './settlement-allocation.ts';
import type { TransactionRow } from './repository.ts';
import { addToBatch, RunBatches } from './settlement-batch.ts';
import { settleClaimed } from './settlement-set.ts';
import { limits } from '../../limits/index.ts';
import './types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { DbOrTx, Tx } from '../../platform/db/types.ts';

interface Settled {
  readonly accountId: string;
  readonly currency: string;
  readonly batchId: string;
}

/**
 * The due scan: the next paid transaction whose availability date has come, locked, skipping those another run
 * holds. Exported for the test that proves it runs on the index migration 0261 built for it
 * (settlement-due-index.test.ts): the statement it plans is this one, not a copy.
 */
export function dueSettlementQuery(
  ctx: AppContext,
  db: DbOrTx,
  scope: DueWorkScope,
  rowsMax = 1,
  id?: string,
) {
  let q = db
    .selectFrom('transactions')
    .selectAll()
    .where('status', 'in', ['success', 'refunded partial', 'refunded'])
    .where('settled_at', 'is', null)
    .where('settle_due_at', '<=', ctx.accountClock.nowSql(sql.ref('transactions.account_id')));
  if (scope.accountId !== undefined) q = q.where('account_id', '=', scope.accountId);
  if (id !== undefined) q = q.where('id', '=', id);
  return q.orderBy('settle_due_at').limit(rowsMax).forUpdate().skipLocked();
}

/** The settlement's journal and, for the wallet's part, its movement and the chargeback debt it pays (decision 560). */
async function postSettlement(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  allocations: NetSettlement['allocations'],
  owedMinor: bigint,
  at: Date,
): Promise<void> {
  const movedMinor = allocations.reduce((sum, a) => sum + a.amountMinor, 0n);
  if (movedMinor > 0n) {
    const journal = await ctx.ledger.post(tx, {
      kind: journalKinds.transactionSettlement,
      reference: row.id,
      at,
      postings: [
        {
          owner: row.account_id,
          code: ledgerCodes.pendingSettlement,
          currency: row.currency,
          amountMinor: -movedMinor,
        },
        ...allocations.map((a) => ({
          owner: a.owner,
          code: a.code,
          currency: row.currency,
          amountMinor: a.amountMinor,
        })),
      ],
    });
    const toWallet = allocations.find(
      (a) => a.owner === row.account_id && a.code === ledgerCodes.walletAvailable,
    );
    if (toWallet !== undefined) {
      await appendWalletMovement(tx, {
        accountId: row.account_id,
        currency: row.currency,
        order: row.order,
        subject: row.subject,
        kind: 'settlement',
        reference: row.id,
        originLiquidation: row.id,
        journal,
        at,
      });
      await collectDisputeDebt(ctx, tx, {
        accountId: row.account_id,
        currency: row.currency,
        owedMinor,
        creditedMinor: toWallet.amountMinor,
        reference: row.id,
        originLiquidation: row.id,
        order: row.order,
        at,
      });
    }
  }
}

/** Settles the due sale `id` in its own database transaction; null when another run took it or settled it. */
async function settleOne(
  ctx: AppContext,
  scope: DueWorkScope,
  batches: RunBatches,
  id: string,
): Promise<Settled | null> {
  return inTransaction(ctx.db, async (tx) => {
    const row = await dueSettlementQuery(ctx, tx, scope, 1, id).executeTakeFirst();
    if (row === undefined) return null;
    const at = await ctx.accountClock.now(row.account_id, tx);
    const grossMinor = BigInt(row.amount_minor);
    const feeMinor = BigInt(row.fee_minor ?? 0n);
    // What refunds already took from this sale's unsettled net (docs/refunds.md) is no longer there to move.
    const netMinor = grossMinor - feeMinor - BigInt(row.refunded_pending_minor);
    // Before the settlement's journal: the debt account sorts first in the ledger's lock order.
    const owedMinor = await lockOwedDebt(ctx, tx, row.account_id, row.currency);
    // Called even for a zero net, so a split payment's shares still reach their settled state.
    const { allocations } = await allocateNet(ctx, tx, row, netMinor, at);
    await postSettlement(ctx, tx, row, allocations, owedMinor, at);
    const batchId = await addToBatch(tx, batches.openFor(row.account_id, row.currency), {
      accountId: row.account_id,
      currency: row.currency,
      grossMinor,
      feeMinor,
      at,
    });
    await tx
      .updateTable('transactions')
      .set({ settled_at: at, updated_at: at, settlement_batch_id: batchId })
      .where('id', '=', row.id)
      .execute();
    return { accountId: row.account_id, currency: row.currency, batchId };
  });
}

/**
 * A chunk: up to `chunkMax` due sales claimed FOR UPDATE SKIP LOCKED (so several processes share the work), the
 * plain ones settled by one statement in this transaction (settlement-set.ts); the others' ids for the per-sale path.
 */
function settleChunk(ctx: AppContext, scope: DueWorkScope, batches: RunBatches, chunkMax: number) {
  return inTransaction(ctx.db, async (tx) => {
    const rows = await dueSettlementQuery(ctx, tx, scope, chunkMax).execute();
    return { claimed: rows.length, ...(await settleClaimed(ctx, tx, rows, batches)) };
  });
}

/**
 * The settlement run (decision 561): chunk after chunk, each committed whole (a run killed mid-way leaves each
 * sale settled once or not at all), and after each chunk the sales it left to the per-sale path, one transaction each.
 */
export async function runSettlements(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  const batches = new RunBatches();
  let settledCount = 0;
  while (settledCount < scope.limit) {
    const chunkMax = Math.min(scope.limit - settledCount, limits.settlementChunkMax);
    const chunk = await settleChunk(ctx, scope, batches, chunkMax);
    for (const b of chunk.batches) batches.committed(b.accountId, b.currency, b.batchId);
    settledCount += chunk.settledCount;
    for (const id of chunk.perSaleIds) {
      const settled = await settleOne(ctx, scope, batches, id);
      if (settled === null) continue;
      batches.committed(settled.accountId, settled.currency, settled.batchId);
      settledCount++;
    }
    if (chunk.claimed < chunkMax) break;
  }
  return settledCount;
}

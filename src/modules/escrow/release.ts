// POST /api/escrow as a command (reference §2.1, docs/escrow.md): the merchant of an escrow account authorises
// the settlement of held sales. Each id gets its own answer, never an HTTP error: `not found` (unknown, another
// account's, or not paid), `pending` (paid, its availability date not reached: nothing recorded, ask again from
// that date), or `liquidate` (its money is in the wallet: released now, earlier, or never held). Every sale's row
// is locked first, in id order, then its hold (decision 060: business rows before ledger rows, the order a refund
// takes them), so concurrent releases of one sale move its money once and never deadlock.
import { markUnchanged } from '../../platform/audit/command-audit.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { ruleFailure, type RuleFailure } from '../../platform/errors/errors.ts';
import { journalKinds, ledgerCodes } from '../../platform/ledger/ledger.ts';
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import { formatDate } from '../../platform/time/time-format.ts';
import type { TransactionRow } from '../transactions/repository.ts';
import { appendWalletMovement } from '../wallet/movements.ts';
import { collectDisputeDebt, lockOwedDebt } from '../wallet/debt-collection.ts';
import './types.ts';

/** reference §2.1's item statuses. `pending for deposit` and `paid` belong to accounts settled to the bank, which Cobro does not have yet. */
type EscrowItemStatus = 'not found' | 'pending' | 'liquidate' | 'pending for deposit' | 'paid';

interface EscrowItem {
  readonly status: EscrowItemStatus;
  readonly transaction_id: string;
  readonly amount: number;
  readonly availability_date: string;
  readonly deposit_date: string;
}

export type Released = { readonly transactions: readonly EscrowItem[] } | RuleFailure;

const unknownDate = 'N/D';

/** What the merchant still owes by currency, less what earlier releases of this call collected. */
type OwedDebt = Map<string, bigint>;
const paidStatuses = new Set(['success', 'refunded partial', 'refunded']);

export async function releaseEscrow(
  ctx: AppContext,
  accountId: string,
  ids: readonly string[],
): Promise<Released> {
  return inTransaction(ctx.db, async (tx) => {
    const account = await tx
      .selectFrom('accounts')
      .select('escrow')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    if (!account.escrow) return ruleFailure('not_escrow');
    const unique = [...new Set(ids)].sort();
    const rows =
      unique.length === 0
        ? []
        : await tx
            .selectFrom('transactions')
            .selectAll()
            .where('account_id', '=', accountId)
            .where('id', 'in', unique)
            .orderBy('id')
            .forUpdate()
            .execute();
    const at = await ctx.accountClock.now(accountId, tx);
    // The merchant's chargeback debt, locked before any ledger account the releases post to (decision 560).
    const owed: OwedDebt = new Map();
    for (const currency of new Set(rows.map((r) => r.currency)))
      owed.set(currency, await lockOwedDebt(ctx, tx, accountId, currency));
    const answers = new Map<string, EscrowItem>();
    for (const row of rows) answers.set(row.id, await releaseOne(ctx, tx, row, at, owed));
    const released = {
      transactions: ids.map((id) => answers.get(id) ?? notFoundItem(id)),
    };
    // None of the caller's sales named: nothing changed, so the audit trail records nothing (decision 531).
    return rows.length === 0 ? markUnchanged(released) : released;
  });
}

/** An id that is not one of the account's paid sales. */
function notFoundItem(id: string): EscrowItem {
  return {
    status: 'not found',
    transaction_id: id,
    amount: 0,
    availability_date: unknownDate,
    deposit_date: unknownDate,
  };
}

async function releaseOne(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  at: Date,
  owed: OwedDebt,
): Promise<EscrowItem> {
  const tz = ctx.config.timeZone;
  const item = (status: EscrowItemStatus, depositAt: Date | null): EscrowItem => ({
    status,
    transaction_id: row.id,
    amount: minorAsJsonNumber(BigInt(row.amount_minor)),
    availability_date: row.settle_due_at === null ? unknownDate : formatDate(row.settle_due_at, tz),
    deposit_date: depositAt === null ? unknownDate : formatDate(depositAt, tz),
  });
  if (!paidStatuses.has(row.status) || row.settle_due_at === null) {
    return notFoundItem(row.id);
  }
  if (row.settled_at === null) return item('pending', null);
  const hold = await tx
    .selectFrom('escrow_holds')
    .selectAll()
    .where('transaction_id', '=', row.id)
    .forUpdate()
    .executeTakeFirst();
  // Settled before the account held its sales: the money went to the wallet then.
  if (hold === undefined) return item('liquidate', row.settled_at);
  if (hold.released_at !== null) return item('liquidate', hold.released_at);
  const heldMinor = BigInt(hold.held_minor);
  if (heldMinor > 0n) await moveHeldToWallet(ctx, tx, row, heldMinor, at, owed);
  await tx
    .updateTable('escrow_holds')
    .set({ held_minor: 0n, released_minor: heldMinor, released_at: at })
    .where('transaction_id', '=', row.id)
    .execute();
  return item('liquidate', at);
}

/** The held money moves from escrow to the wallet's available balance, with its wallet movement. */
async function moveHeldToWallet(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  heldMinor: bigint,
  at: Date,
  owed: OwedDebt,
): Promise<void> {
  const owedMinor = owed.get(row.currency) ?? 0n;
  const journal = await ctx.ledger.post(tx, {
    kind: journalKinds.escrowReleased,
    reference: row.id,
    at,
    postings: [
      {
        owner: row.account_id,
        code: ledgerCodes.escrowHeld,
        currency: row.currency,
        amountMinor: -heldMinor,
      },
      {
        owner: row.account_id,
        code: ledgerCodes.walletAvailable,
        currency: row.currency,
        amountMinor: heldMinor,
      },
    ],
  });
  await appendWalletMovement(tx, {
    accountId: row.account_id,
    currency: row.currency,
    order: row.order,
    subject: row.subject,
    kind: 'escrow_release',
    reference: row.id,
    originLiquidation: row.id,
    journal,
    at,
  });
  const takenMinor = await collectDisputeDebt(ctx, tx, {
    accountId: row.account_id,
    currency: row.currency,
    owedMinor,
    creditedMinor: heldMinor,
    reference: row.id,
    originLiquidation: row.id,
    order: row.order,
    at,
  });
  owed.set(row.currency, owedMinor - takenMinor);
}

// A dispute's end (decision 530), in the caller's transaction, under the sale's row lock, then the dispute's:
// won gives the held money back (first what the merchant still owes the service, then its wallet); lost and
// accepted send it to processor clearing, the acquirer's, and count it as refunded on the sale (`refunded` or
// `refunded partial`, the reference's states), so no refund or dispute takes it twice. Each commits its
// journal, wallet movement and callback with the state.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { notFound, ruleFailure } from '../../platform/errors/errors.ts';
import {
  journalKinds,
  ledgerCodes,
  SYSTEM_OWNER,
  type JournalInput,
} from '../../platform/ledger/ledger.ts';
import { isStorableText } from '../../platform/http/input-guards.ts';
import { lockTransaction } from '../transactions/repository.ts';
import { assertTransition as assertSaleMove } from '../transactions/state-machine.ts';
import { appendWalletMovement } from '../wallet/movements.ts';
import type { DisputeResult } from './open.ts';
import { notifyDispute } from './notify.ts';
import { findDispute, lockDispute, type DisputeRow } from './repository.ts';
import { assertTransition, canMove, type DisputeOutcome } from './states.ts';

export interface ResolveInput {
  /** The merchant's account (accept); null for the operator and the sandbox's acquirer, who name any dispute. */
  readonly accountId: string | null;
  readonly id: string;
  readonly to: DisputeOutcome | 'accepted';
}

/** The dispute under lock, its sale locked first (the order every refund and dispute of the sale takes). */
export async function lockedDispute(
  tx: Tx,
  accountId: string | null,
  id: string,
): Promise<DisputeRow> {
  const found = !isStorableText(id)
    ? undefined
    : accountId === null
      ? await tx.selectFrom('disputes').selectAll().where('id', '=', id).executeTakeFirst()
      : await findDispute(tx, accountId, id);
  if (found === undefined) throw notFound('dispute');
  await lockTransaction(tx, found.transaction_id);
  const row = await lockDispute(tx, found.id);
  if (row === undefined) throw notFound('dispute');
  return row;
}

function key(row: DisputeRow, code: string) {
  return { owner: row.account_id, code, currency: row.currency };
}

async function wonJournal(ctx: AppContext, tx: Tx, row: DisputeRow, at: Date) {
  const amountMinor = BigInt(row.amount_minor);
  const [debtBalance] = await ctx.ledger.hold(tx, [key(row, ledgerCodes.disputeDebt)]);
  const owedMinor = debtBalance !== undefined && debtBalance < 0n ? -debtBalance : 0n;
  const repayMinor = owedMinor < amountMinor ? owedMinor : amountMinor;
  const walletMinor = amountMinor - repayMinor;
  const journal: JournalInput = {
    kind: journalKinds.disputeWon,
    reference: row.id,
    at,
    postings: [
      { ...key(row, ledgerCodes.disputeHeld), amountMinor: -amountMinor },
      ...(repayMinor > 0n
        ? [{ ...key(row, ledgerCodes.disputeDebt), amountMinor: repayMinor }]
        : []),
      ...(walletMinor > 0n
        ? [{ ...key(row, ledgerCodes.walletAvailable), amountMinor: walletMinor }]
        : []),
    ],
  };
  return { posted: await ctx.ledger.post(tx, journal), walletMinor };
}

/** The lost money counts as refunded on the sale: its state says how much of it is gone. */
async function markSale(tx: Tx, row: DisputeRow, at: Date): Promise<void> {
  const sale = await lockTransaction(tx, row.transaction_id);
  if (sale === undefined) throw new Error(`dispute ${row.id} names no sale`);
  const refundedMinor = BigInt(sale.refunded_minor) + BigInt(row.amount_minor);
  const status = refundedMinor >= BigInt(sale.amount_minor) ? 'refunded' : 'refunded partial';
  if (status !== sale.status) assertSaleMove(sale.status, status);
  await tx
    .updateTable('transactions')
    .set({ status, refunded_minor: refundedMinor, updated_at: at })
    .where('id', '=', sale.id)
    .execute();
}

async function moveMoney(ctx: AppContext, tx: Tx, row: DisputeRow, input: ResolveInput, at: Date) {
  if (input.to === 'won') {
    const { posted, walletMinor } = await wonJournal(ctx, tx, row, at);
    if (walletMinor > 0n) {
      const sale = await lockTransaction(tx, row.transaction_id);
      await appendWalletMovement(tx, {
        accountId: row.account_id,
        currency: row.currency,
        order: sale?.order ?? '',
        subject: `chargeback won: ${row.reason}`,
        kind: 'dispute',
        reference: row.id,
        originLiquidation: row.transaction_id,
        journal: posted,
        at,
      });
    }
    return;
  }
  await ctx.ledger.post(tx, {
    kind: input.to === 'lost' ? journalKinds.disputeLost : journalKinds.disputeAccepted,
    reference: row.id,
    at,
    postings: [
      { ...key(row, ledgerCodes.disputeHeld), amountMinor: -BigInt(row.amount_minor) },
      {
        owner: SYSTEM_OWNER,
        code: ledgerCodes.processorClearing,
        currency: row.currency,
        amountMinor: BigInt(row.amount_minor),
      },
    ],
  });
  await markSale(tx, row, at);
}

export async function resolveDispute(
  ctx: AppContext,
  tx: Tx,
  input: ResolveInput,
): Promise<DisputeResult> {
  const row = await lockedDispute(tx, input.accountId, input.id);
  if (!canMove(row.status, input.to))
    return {
      ok: false,
      failure: ruleFailure('dispute_closed', { id: row.id, status: row.status }),
    };
  assertTransition(row.status, input.to);
  const at = await ctx.accountClock.now(row.account_id, tx);
  await moveMoney(ctx, tx, row, input, at);
  const dispute = await tx
    .updateTable('disputes')
    .set({ status: input.to, updated_at: at, resolved_at: at })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await notifyDispute(ctx, tx, dispute);
  return { ok: true, dispute };
}

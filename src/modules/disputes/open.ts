// Opening a dispute (decision 530), in the caller's transaction: under the sale's row lock (every refund and
// dispute of the sale queues there), check what is left of it after refunds and open disputes; then hold the
// amount in the merchant's dispute_held: from the available wallet as far as it goes, the rest as the merchant's
// debt to the service (dispute_debt goes negative, never the wallet). The row, the journal, the wallet movement
// and the dispute.opened callback commit together.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { notFound, ruleFailure, type RuleFailure } from '../../platform/errors/errors.ts';
import { newId } from '../../platform/ids/ids.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { journalKinds, ledgerCodes } from '../../platform/ledger/ledger.ts';
import { isStorableText } from '../../platform/http/input-guards.ts';
import { disputeLimits } from '../../limits/index.ts';
import {
  findAccountTransaction,
  findTransactionById,
  lockTransaction,
  type TransactionRow,
} from '../transactions/repository.ts';
import { appendWalletMovement } from '../wallet/movements.ts';
import { notifyDispute } from './notify.ts';
import { findKeyedDispute, openDisputedMinor, type DisputeRow } from './repository.ts';
import './types.ts';

export interface OpenInput {
  /** The account the sale must belong to; null for the operator, who names any sale. */
  readonly accountId: string | null;
  readonly transactionId: string;
  readonly amountMinor: bigint;
  readonly reason: string;
  /**
   * The operator's key (decision 710): a line of `disputes import`, or `disputes open --key`. When the account has a
   * dispute with it, that dispute is the answer and nothing opens.
   */
  readonly operatorKey?: string;
}

export type DisputeResult =
  | {
      readonly ok: true;
      readonly dispute: DisputeRow;
      /** True when the dispute was opened before, with the same operator's key. */
      readonly already?: true;
    }
  | { readonly ok: false; readonly failure: RuleFailure };

async function lockedSale(tx: Tx, input: OpenInput): Promise<TransactionRow> {
  const key = input.transactionId;
  const found = !isStorableText(key)
    ? undefined
    : input.accountId === null
      ? await findTransactionById(tx, key)
      : await findAccountTransaction(tx, input.accountId, key);
  const row = found === undefined ? undefined : await lockTransaction(tx, found.id);
  if (row === undefined) throw notFound('transaction');
  return row;
}

async function refusal(tx: Tx, row: TransactionRow, amountMinor: bigint) {
  if (row.status !== 'success' && row.status !== 'refunded partial')
    return ruleFailure('transaction_not_disputable', { id: row.id, status: row.status });
  const leftMinor =
    BigInt(row.amount_minor) - BigInt(row.refunded_minor) - (await openDisputedMinor(tx, row.id));
  if (amountMinor > leftMinor)
    return ruleFailure('dispute_exceeds_remaining', {
      id: row.id,
      leftMinor: leftMinor > 0n ? leftMinor : 0n,
      currency: row.currency,
      requestedMinor: amountMinor,
    });
  return null;
}

/** The hold, the dispute's row, its wallet movement and its callback, once the sale allows it. */
async function holdAndRecord(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  input: OpenInput,
): Promise<DisputeResult> {
  const accountId = row.account_id;
  const at = await ctx.accountClock.now(accountId, tx);
  const id = newId('dsp', 20);
  const key = (code: string) => ({ owner: accountId, code, currency: row.currency });
  // Every account the journal may move, held at once in the ledger's order (docs/ledger.md): the debt sorts before
  // the wallet, as the settlement run, a dispute won and an escrow release take them (decision 635).
  const [availableMinor] = await ctx.ledger.hold(tx, [
    key(ledgerCodes.walletAvailable),
    key(ledgerCodes.disputeDebt),
    key(ledgerCodes.disputeHeld),
  ]);
  const usableMinor = availableMinor !== undefined && availableMinor > 0n ? availableMinor : 0n;
  const fromWalletMinor = usableMinor < input.amountMinor ? usableMinor : input.amountMinor;
  const debtMinor = input.amountMinor - fromWalletMinor;
  const journal = await ctx.ledger.post(tx, {
    kind: journalKinds.disputeOpened,
    reference: id,
    memo: input.reason,
    at,
    postings: [
      ...(fromWalletMinor > 0n
        ? [{ ...key(ledgerCodes.walletAvailable), amountMinor: -fromWalletMinor }]
        : []),
      ...(debtMinor > 0n ? [{ ...key(ledgerCodes.disputeDebt), amountMinor: -debtMinor }] : []),
      { ...key(ledgerCodes.disputeHeld), amountMinor: input.amountMinor },
    ],
  });
  const dispute = await tx
    .insertInto('disputes')
    .values({
      id,
      account_id: accountId,
      transaction_id: row.id,
      amount_minor: input.amountMinor,
      currency: row.currency,
      reason: input.reason,
      status: 'needs_response',
      from_wallet_minor: fromWalletMinor,
      debt_minor: debtMinor,
      evidence_text: null,
      respond_by: new Date(at.getTime() + disputeLimits.responseMs),
      created_at: at,
      updated_at: at,
      operator_key: input.operatorKey ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (fromWalletMinor > 0n)
    await appendWalletMovement(tx, {
      accountId,
      currency: row.currency,
      order: row.order,
      subject: `chargeback: ${input.reason}`,
      kind: 'dispute',
      reference: id,
      originLiquidation: row.id,
      journal,
      at,
    });
  await notifyDispute(ctx, tx, dispute);
  return { ok: true, dispute };
}

export async function openDispute(
  ctx: AppContext,
  tx: Tx,
  input: OpenInput,
): Promise<DisputeResult> {
  const row = await lockedSale(tx, input);
  // Under the sale's lock, so the same line imported at once waits here and then finds the row of the first.
  if (input.operatorKey !== undefined) {
    const earlier = await findKeyedDispute(tx, row.account_id, input.operatorKey);
    if (earlier !== undefined) return { ok: true, dispute: earlier, already: true };
  }
  const refused = await refusal(tx, row, input.amountMinor);
  if (refused !== null) return { ok: false, failure: refused };
  if (input.operatorKey === undefined) return holdAndRecord(ctx, tx, row, input);
  return keyedHoldAndRecord(ctx, tx, row, { ...input, operatorKey: input.operatorKey });
}

/** Whether an insert lost to a dispute with the same operator's key (the unique index of migration 0490). */
function isKeyTaken(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint, message } = error as Record<string, unknown>;
  return (
    code === '23505' &&
    (constraint === 'disputes_operator_key' ||
      (typeof message === 'string' && message.includes('disputes_operator_key')))
  );
}

/**
 * A keyed opening (decision 885): the sale's lock does not order two openings with one key on two sales of the
 * merchant, so the hold runs under a savepoint and, when the insert loses to the other's committed row, rolls back
 * whole (the hold, the movement, the callback) and answers the winner, as the same key run again does.
 */
async function keyedHoldAndRecord(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  input: OpenInput & { readonly operatorKey: string },
): Promise<DisputeResult> {
  try {
    return await inTransaction(tx, (inner) => holdAndRecord(ctx, inner, row, input));
  } catch (error) {
    if (!isKeyTaken(error)) throw error;
    const winner = await findKeyedDispute(tx, row.account_id, input.operatorKey);
    if (winner === undefined) throw error;
    return { ok: true, dispute: winner, already: true };
  }
}

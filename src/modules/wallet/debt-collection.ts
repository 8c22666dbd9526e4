// Collecting a merchant's chargeback debt (decision 560): what `dispute_debt` says the merchant owes the service
// (decision 530) is paid from the next money that reaches its available wallet (a sale's settlement, an escrow
// release; decision 905: a payout or withdrawal given back, a refused refund's return), before the merchant can pay
// it out, as Stripe nets a negative balance against every incoming credit. The credit posts first, then
// `dispute.debt_collected` takes the debt back from the wallet in the same transaction, with a wallet movement of
// kind `dispute_debt` (an expense the merchant reads next to the income that paid it).
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import { journalKinds, ledgerCodes, type JournalInput } from '../../platform/ledger/ledger.ts';
import { appendWalletMovement } from './movements.ts';

/** The subject of the wallet movement a collection writes. */
export const debtSubject = 'chargeback debt paid';

function debtKey(accountId: string, currency: string) {
  return { owner: accountId, code: ledgerCodes.disputeDebt, currency };
}

/**
 * What the merchant owes now in `currency` (0 when nothing), read without a lock: the balance lockOwedDebt checks,
 * and what `cobro accounts show` prints (decision 997).
 */
export async function owedDebt(
  ctx: AppContext,
  db: DbOrTx,
  accountId: string,
  currency: string,
): Promise<bigint> {
  const balanceMinor = await ctx.ledger.balance(db, debtKey(accountId, currency));
  return balanceMinor < 0n ? -balanceMinor : 0n;
}

/**
 * What the merchant owes now, with its debt account locked until commit when it owes anything. Called before the
 * credit's journal: `dispute_debt` sorts before the wallet's and the pending or escrow accounts (ledgerLockOrder).
 * A merchant without debt is read without a lock or a new account; a debt opened meanwhile waits for the next credit.
 */
export async function lockOwedDebt(
  ctx: AppContext,
  tx: Tx,
  accountId: string,
  currency: string,
): Promise<bigint> {
  if ((await owedDebt(ctx, tx, accountId, currency)) === 0n) return 0n;
  const [balanceMinor] = await ctx.ledger.hold(tx, [debtKey(accountId, currency)]);
  return balanceMinor! < 0n ? -balanceMinor! : 0n;
}

export interface DebtCollection {
  readonly accountId: string;
  readonly currency: string;
  /** lockOwedDebt's answer, taken before the credit. */
  readonly owedMinor: bigint;
  /** What the credit just put in the available wallet: the most the collection takes. */
  readonly creditedMinor: bigint;
  /** What brought the money: the sale, the payout or withdrawal given back, the refused refund (decision 905). */
  readonly reference: string;
  /** The movement's origin_liquidation, as the credit's own movement has it: the sale, or null for a payout. */
  readonly originLiquidation: string | null;
  readonly order: string;
  readonly at: Date;
}

/** What a credit of `creditedMinor` pays of a debt of `owedMinor`: all of the debt it covers, never more. */
export function debtTakenMinor(owedMinor: bigint, creditedMinor: bigint): bigint {
  return owedMinor < creditedMinor ? owedMinor : creditedMinor;
}

/** The `dispute.debt_collected` journal taking `takenMinor` from the wallet back to `dispute_debt`. */
export function debtCollectionJournal(
  accountId: string,
  currency: string,
  takenMinor: bigint,
  reference: string,
  at: Date,
): JournalInput {
  const move = (code: string, amountMinor: bigint) => ({
    owner: accountId,
    code,
    currency,
    amountMinor,
  });
  return {
    kind: journalKinds.disputeDebtCollected,
    reference,
    at,
    postings: [
      move(ledgerCodes.walletAvailable, -takenMinor),
      move(ledgerCodes.disputeDebt, takenMinor),
    ],
  };
}

/** Takes min(owed, credited) from the wallet back to `dispute_debt`; answers what it took (0 when nothing is owed). */
export async function collectDisputeDebt(
  ctx: AppContext,
  tx: Tx,
  c: DebtCollection,
): Promise<bigint> {
  const takenMinor = debtTakenMinor(c.owedMinor, c.creditedMinor);
  if (takenMinor <= 0n) return 0n;
  const journal = await ctx.ledger.post(
    tx,
    debtCollectionJournal(c.accountId, c.currency, takenMinor, c.reference, c.at),
  );
  await appendWalletMovement(tx, {
    accountId: c.accountId,
    currency: c.currency,
    order: c.order,
    subject: debtSubject,
    kind: 'dispute_debt',
    reference: c.reference,
    originLiquidation: c.originLiquidation,
    journal,
    at: c.at,
  });
  return takenMinor;
}

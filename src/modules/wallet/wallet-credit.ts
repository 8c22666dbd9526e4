// Funding a wallet without a sale: an operator adjustment (`cobro wallet credit`) or, in the sandbox only,
// POST /api/sandbox/wallet/credit. Ledger-backed like every other movement. Unlike money a merchant is owed (a
// settlement, an escrow release, a refund's or a payout's return), a credit is a choice and may be refused: it never
// takes a balance past limits.walletBalanceMinorMax (decision 720). An operator's credit may carry a key, so the
// same command run again finds its credit instead of crediting twice.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { newId } from '../../platform/ids/ids.ts';
import { journalKinds, ledgerCodes, SYSTEM_OWNER } from '../../platform/ledger/ledger.ts';
import { appendWalletMovement } from './movements.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { limits } from '../../limits/index.ts';
import { findKeyedCredit, recordKeyedCredit } from './wallet-credit-keys.ts';
import { collectDisputeDebt, lockOwedDebt } from './debt-collection.ts';

export interface CreditInput {
  readonly accountId: string;
  readonly currency: string;
  readonly amountMinor: bigint;
  readonly reason: string;
  /** `adjustment` for operators, `sandbox_credit` for the sandbox endpoint. */
  readonly kind: 'adjustment' | 'sandbox_credit';
  /** Names an operator's credit (`--key`): a credit with this key for the account is answered, not made again. */
  readonly operatorKey?: string;
  /**
   * The operator's `--pay-debt` (decision 997), and always the sandbox's top-up (decision 1016): the credit pays the
   * chargeback debt first, as money given back does (decision 905). Without it a credit is credited whole (decision
   * 980).
   */
  readonly payDebt?: boolean;
}

export interface CreditResult {
  readonly movementId: string;
  readonly creditId: string;
  /** The wallet's balance right after this credit. */
  readonly balanceMinor: bigint;
  readonly amountMinor: bigint;
  readonly currency: string;
  /** true when the key named a credit made before: this is that credit, and nothing was credited now. */
  readonly already: boolean;
  /** What this credit paid of the chargeback debt (`payDebt` only; 0 otherwise, and for a credit found by its key). */
  readonly debtPaidMinor: bigint;
}

const creditJournalKinds = {
  adjustment: journalKinds.walletAdjustment,
  sandbox_credit: journalKinds.walletSandboxCredit,
} as const satisfies Record<CreditInput['kind'], string>;

/** The credit's journal and its wallet movement; answers the movement and the wallet's balance right after it. */
async function postCredit(
  ctx: AppContext,
  tx: Tx,
  input: CreditInput,
  creditId: string,
  at: Date,
): Promise<{ movementId: string; balanceAfterMinor: bigint }> {
  const journal = await ctx.ledger.post(tx, {
    kind: creditJournalKinds[input.kind],
    reference: creditId,
    memo: input.reason,
    at,
    postings: [
      {
        owner: SYSTEM_OWNER,
        code: ledgerCodes.operatorAdjustments,
        currency: input.currency,
        amountMinor: -input.amountMinor,
      },
      {
        owner: input.accountId,
        code: ledgerCodes.walletAvailable,
        currency: input.currency,
        amountMinor: input.amountMinor,
      },
    ],
  });
  const movement = await appendWalletMovement(tx, {
    accountId: input.accountId,
    currency: input.currency,
    order: creditId,
    subject: input.reason,
    kind: input.kind,
    reference: creditId,
    originLiquidation: null,
    journal,
    at,
  });
  const line = journal.lines.find((l) => l.code === ledgerCodes.walletAvailable);
  return { movementId: movement.id, balanceAfterMinor: line?.balanceAfterMinor ?? 0n };
}

/**
 * null when the credit would take the balance over limits.walletBalanceMinorMax; nothing is written then. With a key
 * already used, the credit it made (whatever its amount: the caller compares), and nothing is written.
 */
export async function creditWallet(
  ctx: AppContext,
  input: CreditInput,
): Promise<CreditResult | null> {
  return inTransaction(ctx.db, async (tx) => {
    // `dispute_debt` sorts before the wallet in the ledger's lock order: locked first (decision 905).
    const owedMinor =
      input.payDebt === true ? await lockOwedDebt(ctx, tx, input.accountId, input.currency) : 0n;
    const [balanceMinor] = await ctx.ledger.hold(tx, [
      { owner: input.accountId, code: ledgerCodes.walletAvailable, currency: input.currency },
    ]);
    if (input.operatorKey !== undefined) {
      const earlier = await findKeyedCredit(tx, input.accountId, input.operatorKey);
      if (earlier !== undefined)
        return {
          ...earlier,
          balanceMinor: earlier.balanceAfterMinor,
          already: true,
          debtPaidMinor: 0n,
        };
    }
    if (balanceMinor! + input.amountMinor > limits.walletBalanceMinorMax) return null;
    const at = await ctx.accountClock.now(input.accountId, tx);
    const creditId = newId('adj', 17);
    const { movementId, balanceAfterMinor } = await postCredit(ctx, tx, input, creditId, at);
    const debtPaidMinor = await collectDisputeDebt(ctx, tx, {
      accountId: input.accountId,
      currency: input.currency,
      owedMinor,
      creditedMinor: input.amountMinor,
      reference: creditId,
      originLiquidation: null,
      order: creditId,
      at,
    });
    const credit = {
      movementId,
      creditId,
      balanceMinor: balanceAfterMinor - debtPaidMinor,
      amountMinor: input.amountMinor,
      currency: input.currency,
      already: false,
      debtPaidMinor,
    };
    if (input.operatorKey !== undefined) {
      await recordKeyedCredit(tx, {
        ...credit,
        accountId: input.accountId,
        operatorKey: input.operatorKey,
        balanceAfterMinor: credit.balanceMinor,
        at,
      });
    }
    return credit;
  });
}

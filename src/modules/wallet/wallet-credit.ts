// Funding a wallet without a sale: an operator adjustment (`cobro wallet credit`) or, in the sandbox only,
// POST /api/sandbox/wallet/credit. Ledger-backed like every other movement.
import type { AppContext } from '../../platform/context.ts';
import { newId } from '../../platform/ids/ids.ts';
import { journalKinds, ledgerCodes, SYSTEM_OWNER } from '../../platform/ledger/ledger.ts';
import { appendWalletMovement } from './movements.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { limits } from '../../limits/index.ts';

export interface CreditInput {
  readonly accountId: string;
  readonly currency: string;
  readonly amountMinor: bigint;
  readonly reason: string;
  /** `adjustment` for operators, `sandbox_credit` for the sandbox endpoint. */
  readonly kind: 'adjustment' | 'sandbox_credit';
}

export interface CreditResult {
  readonly movementId: string;
  readonly creditId: string;
  readonly balanceMinor: bigint;
}

const creditJournalKinds = {
  adjustment: journalKinds.walletAdjustment,
  sandbox_credit: journalKinds.walletSandboxCredit,
} as const satisfies Record<CreditInput['kind'], string>;

/** null when the credit would take the balance over limits.walletBalanceMinorMax; nothing is written then. */
export async function creditWallet(
  ctx: AppContext,
  input: CreditInput,
): Promise<CreditResult | null> {
  return inTransaction(ctx.db, async (tx) => {
    const [balanceMinor] = await ctx.ledger.hold(tx, [
      { owner: input.accountId, code: ledgerCodes.walletAvailable, currency: input.currency },
    ]);
    if (balanceMinor! + input.amountMinor > limits.walletBalanceMinorMax) return null;
    const at = await ctx.accountClock.now(input.accountId, tx);
    const creditId = newId('adj', 17);
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
    return { movementId: movement.id, creditId, balanceMinor: line?.balanceAfterMinor ?? 0n };
  });
}

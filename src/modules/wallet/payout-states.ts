// The payout state machine as data (STYLE rule 9) and the sandbox's outcome-by-amount table (reference §13.4).
import { stateMachine } from '../../platform/work/state-machine.ts';

export const payoutStatuses = [
  'pending',
  'processing',
  'success',
  'banking_error',
  'fraud_prevention',
] as const;
export type PayoutStatus = (typeof payoutStatuses)[number];

// A `refund` pays a bank refund back to its payer (decision 112): its money comes from refund clearing, not from
// the wallet, so it reserves nothing and leaves no wallet movement.
const payoutKinds = ['payout', 'withdrawal', 'refund'] as const;
export type PayoutKind = (typeof payoutKinds)[number];
/** The kinds a merchant asks for, paid from the wallet. */
export type WalletPayoutKind = Exclude<PayoutKind, 'refund'>;

const payoutTransitions = {
  // pending -> success | banking_error directly: the sandbox resolves its fixed amounts at creation.
  pending: ['processing', 'success', 'banking_error', 'fraud_prevention'],
  processing: ['success', 'banking_error', 'fraud_prevention'],
  // success -> banking_error: a paid transfer the receiving bank sent back (a CCA rejection in Chile): Fintoc's
  // `returned` for a Fintoc transfer (decision 830), `cobro payouts return` for a bank file's payout (decision 915);
  // `cobro payouts resolve` and the results import never make it.
  success: ['banking_error'],
  banking_error: [],
  fraud_prevention: [],
} as const satisfies Record<PayoutStatus, readonly PayoutStatus[]>;

const machine = stateMachine<PayoutStatus>('payout', payoutTransitions);
export const canTransition = machine.can;
export const assertTransition = machine.assertMove;

export type PayoutOutcome = 'paid' | 'rejected' | 'open';

/** What a status means for the money: paid out, given back to the wallet, or still reserved. */
export function outcomeOf(status: PayoutStatus): PayoutOutcome {
  switch (status) {
    case 'pending':
    case 'processing':
      return 'open';
    case 'success':
      return 'paid';
    case 'banking_error':
    case 'fraud_prevention':
      return 'rejected';
    default: {
      const never: never = status;
      throw new Error(`unknown payout status ${String(never)}`);
    }
  }
}

/** The reason the reference shows for a bank rejection, leading space included (reference §9.7). */
export const sandboxRejectionReason =
  ' Error CCA 51. Cuenta Beneficiario no Existe, error_creditor_account_not_found';
export const fraudRejectionReason = 'Rechazado por prevención de fraude';

const sandboxApprovedMinor: ReadonlySet<bigint> = new Set([1000n, 2000n, 3000n]);
const sandboxRejectedMinor: ReadonlySet<bigint> = new Set([1500n, 2500n, 3500n]);

/** Sandbox payouts of these amounts resolve in the creating transaction; others follow the sandbox clock. */
export function sandboxImmediateOutcome(amountMinor: bigint): 'success' | 'banking_error' | null {
  if (sandboxApprovedMinor.has(amountMinor)) return 'success';
  if (sandboxRejectedMinor.has(amountMinor)) return 'banking_error';
  return null;
}

// The transaction life cycle as data (STYLE rule 9, supplement §4.3). Refund states belong to nullification,
// which moves success -> refunded partial | refunded.
import { stateMachine } from '../../platform/work/state-machine.ts';

export const transactionStatuses = [
  'pending',
  'success',
  'rejected',
  'refunded partial',
  'refunded',
] as const;
export type TransactionStatus = (typeof transactionStatuses)[number];

const transitions = {
  pending: ['success', 'rejected'],
  success: ['refunded partial', 'refunded'],
  rejected: [],
  // Back when the processor refuses a refund and its amount returns to the merchant (docs/refunds.md).
  'refunded partial': ['refunded', 'success'],
  refunded: ['refunded partial', 'success'],
} as const satisfies Record<TransactionStatus, readonly TransactionStatus[]>;

const machine = stateMachine<TransactionStatus>('transaction', transitions);
export const assertTransition = machine.assertMove;

/** A paid sale's statuses: `success` and where its refunds move it (decision 1043). */
const paidStatuses: readonly TransactionStatus[] = ['success', 'refunded partial', 'refunded'];

/** True when the sale was paid; `charge_key` names the attempt that paid it (success-statement.ts). */
export function isPaid(status: TransactionStatus): boolean {
  return paidStatuses.includes(status);
}

/** The status the urlnotify payload carries (reference §1.4: success | failed). */
export function notifyStatus(status: TransactionStatus): 'success' | 'failed' {
  switch (status) {
    case 'success':
      return 'success';
    case 'rejected':
      return 'failed';
    case 'pending':
    case 'refunded partial':
    case 'refunded':
      throw new Error(`no payment-result callback for status ${status}`);
    default: {
      const never: never = status;
      return never;
    }
  }
}

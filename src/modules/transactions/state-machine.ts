// The transaction life cycle as data (STYLE rule 9, supplement §4.3). Refund states belong to nullification,
// which moves success -> refunded partial | refunded.
import assert from 'node:assert/strict';

export const transactionStatuses = ['pending', 'success', 'rejected', 'refunded partial', 'refunded'] as const;
export type TransactionStatus = (typeof transactionStatuses)[number];

export const transitions = {
  pending: ['success', 'rejected'],
  success: ['refunded partial', 'refunded'],
  rejected: [],
  'refunded partial': ['refunded'],
  refunded: [],
} as const satisfies Record<TransactionStatus, readonly TransactionStatus[]>;

export function canTransition(from: TransactionStatus, to: TransactionStatus): boolean {
  return (transitions[from] as readonly TransactionStatus[]).includes(to);
}

/** Asserts a move the code is about to make; callers check the domain condition first. */
export function assertTransition(from: TransactionStatus, to: TransactionStatus): void {
  assert.ok(canTransition(from, to), `transaction cannot move from ${from} to ${to}`);
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

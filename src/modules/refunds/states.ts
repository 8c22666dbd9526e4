// The nullification life cycle as data (STYLE rule 9; reference §3.1's state table, docs/refunds.md).
// pending: registered, inside the command that registers it. complete: the money was collected from the merchant
// (its pending settlement, then its wallet) into refund clearing. reverse_completed: the processor gave it back to
// the payer. reverse_deleted: the processor refused it, and the collected money went back to the merchant.
// waiting_bank_details: a bank refund's money is collected and waits for the payer's bank details (decision 112).
import { stateMachine } from '../../platform/work/state-machine.ts';

export const nullificationStatuses = [
  'pending',
  'awaiting_funds',
  'waiting_bank_details',
  'complete',
  'reverse_deleted',
  'reverse_completed',
] as const;
export type NullificationStatus = (typeof nullificationStatuses)[number];

const transitions = {
  // A bank refund (decision 112) whose money is collected waits for the payer's bank details instead.
  pending: ['complete', 'awaiting_funds', 'waiting_bank_details', 'reverse_deleted'],
  awaiting_funds: ['complete', 'waiting_bank_details', 'reverse_deleted'],
  // A bank refund is `complete` while its payout is out; a payout the bank rejects waits for new details.
  complete: ['reverse_completed', 'waiting_bank_details', 'reverse_deleted'],
  waiting_bank_details: ['complete', 'reverse_deleted'],
  reverse_completed: [],
  reverse_deleted: [],
} as const satisfies Record<NullificationStatus, readonly NullificationStatus[]>;

const machine = stateMachine<NullificationStatus>('nullification', transitions);
export const assertTransition = machine.assertMove;

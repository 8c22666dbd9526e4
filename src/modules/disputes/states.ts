// The dispute life cycle as data (STYLE rule 9, decision 530). needs_response: opened, the merchant may answer
// until respond_by. under_review: the merchant sent evidence; the acquirer decides. won: the money held goes back.
// lost: the acquirer keeps it. accepted: the merchant conceded; the money goes as for a lost one.
import { stateMachine } from '../../platform/work/state-machine.ts';

export const disputeStatuses = [
  'needs_response',
  'under_review',
  'won',
  'lost',
  'accepted',
] as const;
export type DisputeStatus = (typeof disputeStatuses)[number];

/** How an acquirer (or the sandbox) ends a dispute. */
export const disputeOutcomes = ['won', 'lost'] as const;
export type DisputeOutcome = (typeof disputeOutcomes)[number];

const transitions = {
  // The acquirer may decide before the merchant answers (an answer past respond_by is no answer).
  needs_response: ['under_review', 'accepted', 'won', 'lost'],
  // More evidence while under review keeps it there.
  under_review: ['under_review', 'accepted', 'won', 'lost'],
  won: [],
  lost: [],
  accepted: [],
} as const satisfies Record<DisputeStatus, readonly DisputeStatus[]>;

const machine = stateMachine<DisputeStatus>('dispute', transitions);
export const assertTransition = machine.assertMove;
export const canMove = machine.can;

/** States whose money is still held: they count against what is left of the sale. */
export const openStatuses: readonly DisputeStatus[] = ['needs_response', 'under_review'];

// The subscription life cycle as data (STYLE rule 9; reference §7 statuses). `register` until the payer enrols a
// card; `active` while billed; `suspended` after a cycle's last retry is declined (a new card reactivates it);
// `cancel` (the operator), `delete` (DELETE /api/sususcription or the client deleted) and `finish` are final.
import { stateMachine } from '../../platform/work/state-machine.ts';

export const subscriptionStatuses = [
  'register',
  'active',
  'finish',
  'delete',
  'cancel',
  'suspended',
] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

const subscriptionTransitions = {
  register: ['active', 'delete', 'cancel'],
  active: ['suspended', 'finish', 'delete', 'cancel'],
  suspended: ['active', 'finish', 'delete', 'cancel'],
  finish: [],
  delete: [],
  cancel: [],
} as const satisfies Record<SubscriptionStatus, readonly SubscriptionStatus[]>;

const machine = stateMachine<SubscriptionStatus>('subscription', subscriptionTransitions);
export const assertMove = machine.assertMove;

/** Statuses that end a subscription: nothing is charged after them, ever. */
export function isFinal(status: SubscriptionStatus): boolean {
  return subscriptionTransitions[status].length === 0;
}

/**
 * The statuses not ended (`register`, `active`, `suspended`), for SQL: a subscription in one may still enrol a card,
 * keeps its cards' inscriptions (decision 1007) and holds its plan's pricing. The one list; in code, `!isFinal`.
 */
export const liveStatuses: readonly SubscriptionStatus[] = subscriptionStatuses.filter(
  (s) => !isFinal(s),
);

// A processor refund left unresolved (decisions 745 and 785): `complete`, its money held in refund clearing, and no
// longer asked at the processor. A processor refund that is `complete` always has its next ask due until an answer
// ends it, so a missing due time is what marks it. Only the processor's webhook or the operator
// (`cobro refunds resolve`, decision 820) ends it; the operator's views name it so it is found (decision 850).
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../platform/db/types.ts';
import type { NullificationRow } from './repository.ts';

type Marks = Pick<NullificationRow, 'channel' | 'status' | 'dispatch_due_at'>;

export function isUnresolved(row: Marks): boolean {
  return row.channel === 'processor' && row.status === 'complete' && row.dispatch_due_at === null;
}

/** The same test as a condition on `nullifications`, for a query that lists them. */
export function unresolvedCondition(eb: ExpressionBuilder<Database, 'nullifications'>) {
  return eb.and([
    eb('nullifications.channel', '=', 'processor'),
    eb('nullifications.status', '=', 'complete'),
    eb('nullifications.dispatch_due_at', 'is', null),
  ]);
}

// One statement claims a payable transaction for an attempt (decision 555): the checks of attempt-claim.ts's locked
// path written as its WHERE, so the common case is one round trip with no transaction around it. No row back means
// the transaction is not payable now; the locked path then says why (final, in progress, expired).
import { CompiledQuery } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import type { TransactionRow } from './repository.ts';

/**
 * $1 attempt id, $2 lease end, $3 the account's now, $4 transaction id, $5 its account (whose clock gave $3).
 * Pending, no live lease, not expired (attempt-claim.ts isExpired, with no live lease).
 */
export const claimAttemptText = `UPDATE transactions t SET attempt_id = $1, attempt_lease_until = $2, updated_at = $3
  WHERE t.id = $4 AND t.account_id = $5 AND t.status = 'pending'
    AND (t.attempt_lease_until IS NULL OR t.attempt_lease_until <= $3)
    AND (t.expires_at IS NULL OR t.expires_at > $3)
  RETURNING t.*`;

/**
 * The same in production, where an undecided acquirer commit (a processor session still `committing`) holds the
 * transaction too. Two texts rather than one with a boolean parameter: PostgreSQL planned that one again on every
 * call (a custom plan each time, its generic plan never cheaper), 234 µs of its CPU a payment in the bench; each of
 * these takes its generic plan after five calls.
 */
export const claimAttemptGuardedText = `UPDATE transactions t SET attempt_id = $1, attempt_lease_until = $2, updated_at = $3
  WHERE t.id = $4 AND t.account_id = $5 AND t.status = 'pending'
    AND (t.attempt_lease_until IS NULL OR t.attempt_lease_until <= $3)
    AND (t.expires_at IS NULL OR t.expires_at > $3)
    AND NOT EXISTS (
      SELECT 1 FROM processor_sessions s WHERE s.transaction_id = t.id AND s.state = 'committing')
  RETURNING t.*`;

/** The claimed row, or undefined when the transaction is not payable now. */
export async function claimPayable(
  db: DbOrTx,
  claim: {
    readonly transactionId: string;
    readonly accountId: string;
    readonly attemptId: string;
    readonly leaseUntil: Date;
    readonly now: Date;
    readonly guardUndecided: boolean;
  },
): Promise<TransactionRow | undefined> {
  const result = await db.executeQuery<TransactionRow>(
    CompiledQuery.raw(claim.guardUndecided ? claimAttemptGuardedText : claimAttemptText, [
      claim.attemptId,
      claim.leaseUntil,
      claim.now,
      claim.transactionId,
      claim.accountId,
    ]),
  );
  return result.rows[0];
}

// One call claims payable transactions for their attempts (decisions 555 and 620): the checks of attempt-claim.ts's
// locked path written as each claim's WHERE, so the common case is one round trip with no transaction around it,
// and the claims of one account that arrive together share it (claim-group.ts). Its text is the function
// `cobro_claim_attempts` of migration 0580 (0440's, claiming in the transactions' id order, decision 630, its leases
// on the service clock, decision 760). A claim
// whose row does not come back is not payable now; the locked path then says why (final, in progress, expired).
import { CompiledQuery } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import type { TransactionRow } from './repository.ts';

/**
 * $1 attempt ids, $2 their transaction ids, $3 their lease ends, $4 the account's now, $5 the account (whose clock
 * gave $4), $6 whether an undecided acquirer commit holds the transaction too (production), $7 the service's now
 * (leases are dated on it, decision 760).
 */
export const claimAttemptsText = 'SELECT * FROM cobro_claim_attempts($1, $2, $3, $4, $5, $6, $7)';

/** One attempt's claim: its transaction, and until when it holds it. */
export interface PayableClaim {
  readonly transactionId: string;
  readonly attemptId: string;
  readonly leaseUntil: Date;
}

/**
 * Each claim's row, in the claims' order (the call answers in id order: matched by attempt id), or undefined for a
 * claim whose transaction is not payable now.
 */
export async function claimPayable(
  db: DbOrTx,
  account: {
    readonly accountId: string;
    /** The account's now: expires_at is checked against it. */
    readonly now: Date;
    /** The service's now: leases are checked against it (decision 760). */
    readonly leaseNow: Date;
    readonly guardUndecided: boolean;
  },
  claims: readonly PayableClaim[],
): Promise<(TransactionRow | undefined)[]> {
  const result = await db.executeQuery<TransactionRow>(
    CompiledQuery.raw(claimAttemptsText, [
      claims.map((c) => c.attemptId),
      claims.map((c) => c.transactionId),
      claims.map((c) => c.leaseUntil),
      account.now,
      account.accountId,
      account.guardUndecided,
      account.leaseNow,
    ]),
  );
  const byAttempt = new Map(result.rows.map((row) => [row.attempt_id, row]));
  return claims.map((c) => byAttempt.get(c.attemptId));
}

import { sql, type Kysely } from 'kysely';
import { claimFunction as unorderedFunction } from './0440-claim-attempts-function.ts';

// Decision 620, mended by decision 630: cobro_claim_attempts (migration 0440) claims its rows in the order of their
// transaction ids, the order in which a group of successes locks an account's pending rows (outcome-statement.ts,
// `ORDER BY id FOR UPDATE`). In the claims' arrival order, a call re-claiming rows whose lease had run out could hold
// one row of a success group and wait for another while the group held that one and waited for the first: a
// deadlock PostgreSQL broke by failing the group, whose payers had all been charged. Otherwise migration 0440's
// function, whole: each claim the single-row UPDATE of decision 555, found by the primary key, its WHERE on the row
// updated; rows come back in id order, and the caller matches them to its claims by attempt id. Created with one
// statement of its own, not through runSql, so its body may end lines with semicolons.
/** Exported for 0470's `down`, which puts this function back (decision 1085). */
export const claimFunction = `
CREATE OR REPLACE FUNCTION cobro_claim_attempts(p_attempt_ids TEXT[], p_ids TEXT[], p_lease_untils TIMESTAMPTZ[],
    p_now TIMESTAMPTZ, p_account_id TEXT, p_guard BOOLEAN)
  RETURNS SETOF transactions LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  i INTEGER;
BEGIN
  FOR i IN SELECT k FROM generate_subscripts(p_ids, 1) AS k ORDER BY p_ids[k], k LOOP
    IF p_guard THEN
      RETURN QUERY UPDATE transactions t
        SET attempt_id = p_attempt_ids[i], attempt_lease_until = p_lease_untils[i], updated_at = p_now
        WHERE t.id = p_ids[i] AND t.account_id = p_account_id AND t.status = 'pending'
          AND (t.attempt_lease_until IS NULL OR t.attempt_lease_until <= p_now)
          AND (t.expires_at IS NULL OR t.expires_at > p_now)
          AND NOT EXISTS (
            SELECT 1 FROM processor_sessions s WHERE s.transaction_id = t.id AND s.state = 'committing')
        RETURNING t.*;
    ELSE
      RETURN QUERY UPDATE transactions t
        SET attempt_id = p_attempt_ids[i], attempt_lease_until = p_lease_untils[i], updated_at = p_now
        WHERE t.id = p_ids[i] AND t.account_id = p_account_id AND t.status = 'pending'
          AND (t.attempt_lease_until IS NULL OR t.attempt_lease_until <= p_now)
          AND (t.expires_at IS NULL OR t.expires_at > p_now)
        RETURNING t.*;
    END IF;
  END LOOP;
END $$`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(claimFunction).execute(db);
}

// Decision 1085: 0440's function put back (its text creates, so the one here is dropped first).
export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION cobro_claim_attempts(TEXT[], TEXT[], TIMESTAMPTZ[], TIMESTAMPTZ, TEXT, BOOLEAN)`.execute(
    db,
  );
  await sql.raw(unorderedFunction).execute(db);
}

import { sql, type Kysely } from 'kysely';
import { claimFunction as idOrderFunction } from './0450-claim-attempts-in-id-order.ts';
import { runSql } from '../run-sql.ts';

// Decision 665: a Fintoc checkout session still `redirected` holds its sale like a Webpay commit whose answer was
// lost (decision 150): Fintoc keeps a session payable for a day, far past Cobro's 10-minute hold, so until Fintoc
// says how the session ended (src/modules/fintoc/session-close.ts asks once the hold runs out) no new attempt may
// claim the sale and no expiry may reject it. Otherwise migration 0450's function, whole; the index finds the open
// Fintoc sessions the due work closes.
/** Exported for 0510's `down`, which puts this function back (decision 1085). */
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
            SELECT 1 FROM processor_sessions s WHERE s.transaction_id = t.id
              AND (s.state = 'committing' OR (s.state = 'redirected' AND s.processor = 'fintoc')))
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
  await runSql(
    db,
    `CREATE INDEX processor_sessions_fintoc_open ON processor_sessions (updated_at)
      WHERE state = 'redirected' AND processor = 'fintoc'`,
  );
}

// Decision 1085: the inverse of the `up`: 0450's function back, the index dropped.
export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(idOrderFunction).execute(db);
  await runSql(db, 'DROP INDEX processor_sessions_fintoc_open');
}

import { sql, type Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';
import { claimFunction as sixArgumentFunction } from './0510-session-holds-its-sale.ts';

// Decision 760: an attempt's lease is process-coordination time, dated on the service clock like an idempotency
// key's lease, never on the account's sandbox clock (moving that clock past a live lease made the attempt look
// abandoned: expired under it, or claimed by a second attempt). cobro_claim_attempts takes the service's now
// (p_lease_now) for the leases it checks; the account's now (p_now) still decides expires_at and dates the row.
// Otherwise migration 0510's function, whole. The 6-argument function goes: a caller of it would compare leases
// with the account's clock again. Leases and refund dispatch times already written on an account clock moved by
// the sandbox are brought back onto the service clock (its offset taken off); production has no offsets.
const claimFunction = `
CREATE FUNCTION cobro_claim_attempts(p_attempt_ids TEXT[], p_ids TEXT[], p_lease_untils TIMESTAMPTZ[],
    p_now TIMESTAMPTZ, p_account_id TEXT, p_guard BOOLEAN, p_lease_now TIMESTAMPTZ)
  RETURNS SETOF transactions LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  i INTEGER;
BEGIN
  FOR i IN SELECT k FROM generate_subscripts(p_ids, 1) AS k ORDER BY p_ids[k], k LOOP
    IF p_guard THEN
      RETURN QUERY UPDATE transactions t
        SET attempt_id = p_attempt_ids[i], attempt_lease_until = p_lease_untils[i], updated_at = p_now
        WHERE t.id = p_ids[i] AND t.account_id = p_account_id AND t.status = 'pending'
          AND (t.attempt_lease_until IS NULL OR t.attempt_lease_until <= p_lease_now)
          AND (t.expires_at IS NULL OR t.expires_at > p_now)
          AND NOT EXISTS (
            SELECT 1 FROM processor_sessions s WHERE s.transaction_id = t.id
              AND (s.state = 'committing' OR (s.state = 'redirected' AND s.holds_sale)))
        RETURNING t.*;
    ELSE
      RETURN QUERY UPDATE transactions t
        SET attempt_id = p_attempt_ids[i], attempt_lease_until = p_lease_untils[i], updated_at = p_now
        WHERE t.id = p_ids[i] AND t.account_id = p_account_id AND t.status = 'pending'
          AND (t.attempt_lease_until IS NULL OR t.attempt_lease_until <= p_lease_now)
          AND (t.expires_at IS NULL OR t.expires_at > p_now)
        RETURNING t.*;
    END IF;
  END LOOP;
END $$`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION cobro_claim_attempts(TEXT[], TEXT[], TIMESTAMPTZ[], TIMESTAMPTZ, TEXT, BOOLEAN)`.execute(
    db,
  );
  await sql.raw(claimFunction).execute(db);
  await runSql(
    db,
    `UPDATE transactions t SET attempt_lease_until = t.attempt_lease_until - c.offset_ms * INTERVAL '1 millisecond'
      FROM sandbox_clocks c WHERE c.account_id = t.account_id AND t.attempt_lease_until IS NOT NULL;
    UPDATE malls m SET attempt_lease_until = m.attempt_lease_until - c.offset_ms * INTERVAL '1 millisecond'
      FROM sandbox_clocks c WHERE c.account_id = m.account_id AND m.attempt_lease_until IS NOT NULL;`,
  );
}

// Decision 1085: 0440's `down` drops the 6-argument function by its signature; without this, a downgrade past 0580
// left the 7-argument one behind and 0440's `down` failed (`function cobro_claim_attempts(...) does not exist`).
// The leases go back onto the account's clock, the exact inverse of the `up`'s UPDATEs, since 0510's function
// compares them with the account's now.
export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION cobro_claim_attempts(TEXT[], TEXT[], TIMESTAMPTZ[], TIMESTAMPTZ, TEXT, BOOLEAN, TIMESTAMPTZ)`.execute(
    db,
  );
  await sql.raw(sixArgumentFunction).execute(db);
  await runSql(
    db,
    `UPDATE transactions t SET attempt_lease_until = t.attempt_lease_until + c.offset_ms * INTERVAL '1 millisecond'
      FROM sandbox_clocks c WHERE c.account_id = t.account_id AND t.attempt_lease_until IS NOT NULL;
    UPDATE malls m SET attempt_lease_until = m.attempt_lease_until + c.offset_ms * INTERVAL '1 millisecond'
      FROM sandbox_clocks c WHERE c.account_id = m.account_id AND m.attempt_lease_until IS NOT NULL;`,
  );
}

import { sql, type Kysely } from 'kysely';
import { claimFunction as fintocNamedFunction } from './0470-fintoc-session-holds-its-sale.ts';
import { runSql } from '../run-sql.ts';

// Decision 725: whether a session still `redirected` holds its sale (decision 665) is the session's own fact, set by
// the processor that opened it (`holds_sale`), no longer the processor's name written into SQL. Fintoc's sessions
// say so; so do those opened before this migration (the backfill). Otherwise migration 0470's function, whole, with
// `s.processor = 'fintoc'` read as `s.holds_sale`. Migration 0470's index stays: it finds Fintoc's open sessions
// for Fintoc's own close work, which asks Fintoc and nobody else.
/** Exported for 0580's `down`, which puts this function back (decision 1085). */
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
              AND (s.state = 'committing' OR (s.state = 'redirected' AND s.holds_sale)))
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
  await runSql(
    db,
    `
    ALTER TABLE processor_sessions ADD COLUMN holds_sale BOOLEAN NOT NULL DEFAULT FALSE;
    UPDATE processor_sessions SET holds_sale = TRUE WHERE processor = 'fintoc';
  `,
  );
  await sql.raw(claimFunction).execute(db);
}

// Decision 1085: the inverse of the `up`: 0470's function back (it names Fintoc again), then the column it no longer
// reads dropped.
export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(fintocNamedFunction).execute(db);
  await runSql(db, 'ALTER TABLE processor_sessions DROP COLUMN holds_sale');
}

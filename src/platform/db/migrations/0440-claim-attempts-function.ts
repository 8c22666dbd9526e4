import { sql, type Kysely } from 'kysely';

// Decision 620: the claims of one account's attempts made together, one round trip and one commit for all of them
// (claim-group.ts). Each claim is the single-row UPDATE of decision 555, found by the primary key: a set-based
// UPDATE joined to the claims was planned from the table's statistics, and while a burst of one merchant's
// checkouts is newer than them PostgreSQL read every pending row of the merchant through the status and account
// indexes instead (4-9 ms a group in the bench). The WHERE is on the row updated, so a claim that waited for
// another's commit is checked again against the row that commit left: two claims of one transaction (two tabs),
// in one call or in two, leave it held by one attempt, and the other gets no row. `p_guard` (production) also
// refuses a transaction whose acquirer commit is undecided (a processor session still `committing`). Rows come
// back in the claims' order. PL/pgSQL so each UPDATE is planned once per connection. Created with one statement of
// its own, not through runSql, so its body may end lines with semicolons.
/** Exported for 0450's `down`, which puts this function back (decision 1085). */
export const claimFunction = `
CREATE FUNCTION cobro_claim_attempts(p_attempt_ids TEXT[], p_ids TEXT[], p_lease_untils TIMESTAMPTZ[],
    p_now TIMESTAMPTZ, p_account_id TEXT, p_guard BOOLEAN)
  RETURNS SETOF transactions LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
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

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION cobro_claim_attempts(TEXT[], TEXT[], TIMESTAMPTZ[], TIMESTAMPTZ, TEXT, BOOLEAN)`.execute(
    db,
  );
}

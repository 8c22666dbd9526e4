import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 270: the callback claim walks the queue in its order and stops at the batch. The due index gains `id`,
// the claim's tie-break, so an index scan hands the rows over already sorted. Claim and record become PL/pgSQL
// functions, which keep their plans for the session (both were planned anew with every batch, in WebAssembly on
// PGlite's event loop), with the planner's choices they need whatever the statistics say (PGlite never gathers
// any, and without them it read, filtered and sorted every pending row to keep 128, and joined a record group to
// whole tables by hash): the claim with sorts off, the record with hash and merge joins and sequential scans off.
// A disabled node is costed 1e10 higher, past jit_above_cost, so PostgreSQL would compile each call with LLVM
// (about 0.8 s a batch): jit is off in both. The statements are the ones src/platform/notifications sent before,
// with their values as parameters; p_sandbox adds each account's sandbox offset to `now` as accountNowSql did.
// Lines inside a body never end with a semicolon (runSql splits statements there).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX notifications_due;
    CREATE INDEX notifications_due ON notifications (next_attempt_at, id) WHERE status IN ('pending', 'delivering');
    CREATE FUNCTION cobro_claim_notifications(p_now TIMESTAMPTZ, p_lease_until TIMESTAMPTZ, p_lease_token TEXT, p_limit INTEGER,
        p_sandbox BOOLEAN, p_account TEXT, p_attempts_max INTEGER, p_lost_error TEXT)
      RETURNS TABLE (claimed_id TEXT, claimed_account_id TEXT, claimed_url TEXT, claimed_body TEXT, claimed_payload JSONB,
        claimed_attempts INTEGER, claimed_schedule_start_attempts INTEGER)
      LANGUAGE plpgsql VOLATILE SET enable_sort = off SET jit = off AS $$
    BEGIN
      RETURN QUERY WITH picked AS (
        SELECT q.id, q.status, q.attempts, q.schedule_start_attempts FROM notifications q
        WHERE q.status IN ('pending', 'delivering')
          AND ((q.status = 'pending' AND q.next_attempt_at <= p_now + CASE WHEN p_sandbox
                THEN COALESCE((SELECT sc.offset_ms FROM sandbox_clocks sc WHERE sc.account_id = q.account_id), 0) ELSE 0 END * INTERVAL '1 millisecond')
            OR (q.status = 'delivering' AND q.lease_until <= p_now))
          AND (p_account IS NULL OR q.account_id = p_account)
        ORDER BY q.next_attempt_at, q.id LIMIT p_limit FOR UPDATE SKIP LOCKED
      ), lost AS (
        UPDATE notification_attempts a SET outcome = 'lost', finished_at = p_now, error = p_lost_error
        FROM picked p WHERE p.status = 'delivering' AND a.notification_id = p.id AND a.finished_at IS NULL
      ), failed AS (
        -- A row whose worker keeps dying on it must still end: past the schedule it fails instead of looping.
        UPDATE notifications n SET status = 'failed', lease_until = NULL, lease_token = NULL, last_error = p_lost_error, updated_at = p_now
        FROM picked p WHERE n.id = p.id AND p.status = 'delivering' AND p.attempts - p.schedule_start_attempts >= p_attempts_max
      ), claimed AS (
        UPDATE notifications n SET status = 'delivering', attempts = n.attempts + 1, lease_until = p_lease_until,
          lease_token = p_lease_token, updated_at = p_now
        FROM picked p WHERE n.id = p.id AND NOT (p.status = 'delivering' AND p.attempts - p.schedule_start_attempts >= p_attempts_max)
        RETURNING n.id, n.account_id, n.url, n.body, CASE WHEN n.body IS NULL THEN n.payload END AS payload, n.attempts,
          n.schedule_start_attempts, n.next_attempt_at
      ), opened AS (
        INSERT INTO notification_attempts (notification_id, attempt_no, lease_token, started_at)
        SELECT c.id, c.attempts, p_lease_token, p_now FROM claimed c
      )
      SELECT c.id, c.account_id, c.url, c.body, c.payload, c.attempts, c.schedule_start_attempts FROM claimed c
      ORDER BY c.next_attempt_at, c.id; END $$;
    CREATE FUNCTION cobro_record_notification_attempts(p_now TIMESTAMPTZ, p_ids TEXT[], p_attempt_nos INTEGER[], p_lease_tokens TEXT[],
        p_outcomes TEXT[], p_status_codes INTEGER[], p_latencies_ms INTEGER[], p_errors TEXT[], p_excerpts TEXT[], p_next_attempts_at TIMESTAMPTZ[])
      RETURNS VOID LANGUAGE plpgsql VOLATILE SET enable_hashjoin = off SET enable_mergejoin = off SET enable_seqscan = off SET jit = off AS $$
    BEGIN
      WITH v AS (
        SELECT * FROM unnest(p_ids, p_attempt_nos, p_lease_tokens, p_outcomes, p_status_codes, p_latencies_ms, p_errors, p_excerpts, p_next_attempts_at)
          AS t (id, attempt_no, lease_token, outcome, status_code, latency_ms, error, excerpt, next_attempt_at)
      ), answered AS (
        UPDATE notification_attempts a SET outcome = v.outcome, finished_at = p_now, status_code = v.status_code,
          latency_ms = v.latency_ms, error = v.error, response_excerpt = v.excerpt
        FROM v WHERE a.notification_id = v.id AND a.attempt_no = v.attempt_no
      )
      UPDATE notifications n SET status = CASE WHEN v.outcome = 'retry' THEN 'pending' ELSE v.outcome END, lease_until = NULL,
        lease_token = NULL, last_status_code = v.status_code, last_error = v.error, updated_at = p_now,
        next_attempt_at = COALESCE(v.next_attempt_at, n.next_attempt_at),
        delivered_at = CASE WHEN v.outcome = 'delivered' THEN p_now ELSE n.delivered_at END
      FROM v WHERE n.id = v.id AND n.lease_token = v.lease_token; END $$
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP FUNCTION cobro_record_notification_attempts(TIMESTAMPTZ, TEXT[], INTEGER[], TEXT[], TEXT[], INTEGER[], INTEGER[], TEXT[], TEXT[], TIMESTAMPTZ[]);
    DROP FUNCTION cobro_claim_notifications(TIMESTAMPTZ, TIMESTAMPTZ, TEXT, INTEGER, BOOLEAN, TEXT, INTEGER, TEXT);
    DROP INDEX notifications_due;
    CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status IN ('pending', 'delivering');
  `,
  );
}

import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Issue 36 (decision 531): the audit trail. One chain of rows per account (`chain`: an account id, or `service`
// for an operator's change that names no account), each row's `hash` a SHA-256 over its fields and the previous
// row's hash (cobro_audit_hash: the one definition the append and `cobro audit verify` both use; the time enters as
// microseconds since the epoch, so no session setting changes the text hashed). `audit_heads` holds each chain's
// last position and hashes; appending updates the chain's head row (an upsert that computes the new row's hash
// from the old head, under its row lock), so two writers of one chain queue and neither forks it. The trigger
// refuses UPDATE, DELETE and TRUNCATE of the trail: a row once written stays as written (cobro audit verify finds
// one changed around the trigger). Function bodies stay on one line: runSql splits statements at a semicolon that
// ends a line.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE audit_log (
      id TEXT PRIMARY KEY,
      chain TEXT NOT NULL,
      seq BIGINT NOT NULL CHECK (seq > 0),
      actor_kind TEXT NOT NULL CHECK (actor_kind IN ('api_key', 'dashboard', 'operator')),
      actor TEXT NOT NULL,
      action TEXT NOT NULL,
      target TEXT,
      request_id TEXT,
      at TIMESTAMPTZ NOT NULL,
      prev_hash TEXT NOT NULL,
      hash TEXT NOT NULL,
      UNIQUE (chain, seq)
    );
    CREATE TABLE audit_heads (
      chain TEXT PRIMARY KEY,
      seq BIGINT NOT NULL,
      prev_hash TEXT NOT NULL,
      hash TEXT NOT NULL
    );
    CREATE FUNCTION cobro_audit_hash(p_chain TEXT, p_seq BIGINT, p_id TEXT, p_actor_kind TEXT, p_actor TEXT, p_action TEXT, p_target TEXT, p_request_id TEXT, p_at TIMESTAMPTZ, p_prev_hash TEXT) RETURNS TEXT LANGUAGE sql STABLE AS $$ SELECT encode(sha256(convert_to(json_build_array(p_chain, p_seq::text, p_id, p_actor_kind, p_actor, p_action, p_target, p_request_id, (extract(epoch FROM p_at) * 1000000)::bigint::text, p_prev_hash)::text, 'UTF8')), 'hex') $$;
    CREATE FUNCTION cobro_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege'; END $$;
    CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION cobro_audit_append_only();
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION cobro_audit_append_only()
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP TABLE audit_log;
    DROP TABLE audit_heads;
    DROP FUNCTION cobro_audit_hash(TEXT, BIGINT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TIMESTAMPTZ, TEXT);
    DROP FUNCTION cobro_audit_append_only()
  `,
  );
}

import { sql, type Kysely } from 'kysely';

// Decision 565: one function appends any number of rows to one audit chain, so a group commit (decision 400, 330)
// writes its requests' rows in its own transaction with one statement, and every other writer uses it with one
// row. It takes the chain's head row lock first (an upsert, so a chain's first rows race safely) and holds it to
// commit, numbers and hashes the rows in the order given, each over the one before it (cobro_audit_hash, migration
// 0361: the same definition `cobro audit verify` recomputes), inserts them and moves the head past the last.
// Created with one statement of its own, not through runSql, so its body may end lines with semicolons.
/** Exported for 0590's `down`, which puts this function back (decision 1085). */
export const appendFunction = `
CREATE FUNCTION cobro_audit_append(p_chain TEXT, p_ids TEXT[], p_actor_kinds TEXT[], p_actors TEXT[], p_actions TEXT[],
    p_targets TEXT[], p_request_ids TEXT[], p_ats TIMESTAMPTZ[])
  RETURNS VOID LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_seq BIGINT;
  v_prev TEXT;
  v_hash TEXT;
BEGIN
  IF coalesce(cardinality(p_ids), 0) = 0 THEN
    RETURN;
  END IF;
  -- A new chain's head starts at position 0 with the genesis hash; an existing one is only locked (seq = seq).
  INSERT INTO audit_heads AS h (chain, seq, prev_hash, hash) VALUES (p_chain, 0, repeat('0', 64), repeat('0', 64))
    ON CONFLICT (chain) DO UPDATE SET seq = h.seq
    RETURNING h.seq, h.hash INTO v_seq, v_hash;
  FOR i IN 1 .. coalesce(cardinality(p_ids), 0) LOOP
    v_prev := v_hash;
    v_seq := v_seq + 1;
    v_hash := cobro_audit_hash(p_chain, v_seq, p_ids[i], p_actor_kinds[i], p_actors[i], p_actions[i], p_targets[i],
      p_request_ids[i], p_ats[i], v_prev);
    INSERT INTO audit_log (chain, seq, id, actor_kind, actor, action, target, request_id, at, prev_hash, hash)
      VALUES (p_chain, v_seq, p_ids[i], p_actor_kinds[i], p_actors[i], p_actions[i], p_targets[i], p_request_ids[i],
        p_ats[i], v_prev, v_hash);
  END LOOP;
  UPDATE audit_heads SET seq = v_seq, prev_hash = v_prev, hash = v_hash WHERE chain = p_chain;
END $$`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(appendFunction).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION cobro_audit_append(TEXT, TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TIMESTAMPTZ[])`.execute(
    db,
  );
}

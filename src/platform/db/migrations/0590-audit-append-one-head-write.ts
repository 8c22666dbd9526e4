import { sql, type Kysely } from 'kysely';
import { appendFunction as upsertHeadFunction } from './0395-audit-append-function.ts';
import { appendChainsFunction as upsertHeadChainsFunction } from './0430-audit-append-chains-function.ts';

// Decision 765: the audit chain's append (decisions 531, 565; migrations 0395 and 0430), restated whole, with the
// head's second write taken out and nothing of the contract changed. The chain's head row is locked with
// SELECT ... FOR UPDATE (created first, ON CONFLICT DO NOTHING, only when the chain has none), so it is written once
// a call, by the UPDATE that moves it past the last row, where the upsert of 0395 wrote it once more to take its
// lock. The lock, held to commit, still queues two writers of one chain: the second's SELECT ... FOR UPDATE waits for
// the first's commit and reads the head it left. The rows are numbered, hashed and inserted as 0395 did, each over
// the one before it, by the same cobro_audit_hash (migration 0361) `cobro audit verify` recomputes, so rows written
// before and after this migration are alike. (One INSERT of all the rows from arrays was measured too: cheaper for
// four rows, dearer for one, decision 765.) Created with one statement of its own, not through runSql, so its body
// may end lines with semicolons.
const appendFunction = `
CREATE OR REPLACE FUNCTION cobro_audit_append(p_chain TEXT, p_ids TEXT[], p_actor_kinds TEXT[], p_actors TEXT[],
    p_actions TEXT[], p_targets TEXT[], p_request_ids TEXT[], p_ats TIMESTAMPTZ[])
  RETURNS VOID LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_seq BIGINT;
  v_prev TEXT;
  v_hash TEXT;
BEGIN
  IF coalesce(cardinality(p_ids), 0) = 0 THEN
    RETURN;
  END IF;
  SELECT h.seq, h.hash INTO v_seq, v_hash FROM audit_heads AS h WHERE h.chain = p_chain FOR UPDATE;
  IF NOT FOUND THEN
    -- A new chain starts at position 0 with the genesis hash. A writer creating the same head at this moment makes
    -- the INSERT wait for its commit and do nothing; the SELECT then locks the head that writer left.
    INSERT INTO audit_heads (chain, seq, prev_hash, hash) VALUES (p_chain, 0, repeat('0', 64), repeat('0', 64))
      ON CONFLICT (chain) DO NOTHING;
    SELECT h.seq, h.hash INTO STRICT v_seq, v_hash FROM audit_heads AS h WHERE h.chain = p_chain FOR UPDATE;
  END IF;
  FOR i IN 1 .. cardinality(p_ids) LOOP
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

// Migration 0430's function, whole, with one path added: when every row is of one chain (a group commit of one
// account's requests, the usual case) they go to cobro_audit_append as given, with no grouping and no sorting of
// eight arrays. Rows of several chains (a payout group shared by accounts, decision 590) are grouped by chain, each
// chain's rows in the order given, one cobro_audit_append a chain, chains in the order of their names. It answers
// the number of chains appended to.
const appendChainsFunction = `
CREATE OR REPLACE FUNCTION cobro_audit_append_chains(p_chains TEXT[], p_ids TEXT[], p_actor_kinds TEXT[],
    p_actors TEXT[], p_actions TEXT[], p_targets TEXT[], p_request_ids TEXT[], p_ats TIMESTAMPTZ[])
  RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF coalesce(cardinality(p_chains), 0) = 0 THEN
    RETURN 0;
  END IF;
  IF p_chains[1] = ALL (p_chains) AND cardinality(p_ids) = cardinality(p_chains) THEN
    PERFORM cobro_audit_append(p_chains[1], p_ids, p_actor_kinds, p_actors, p_actions, p_targets, p_request_ids,
      p_ats);
    RETURN 1;
  END IF;
  RETURN (
    SELECT count(cobro_audit_append(c.chain, c.ids, c.actor_kinds, c.actors, c.actions, c.targets, c.request_ids,
      c.ats))
    FROM (SELECT r.chain, array_agg(r.id ORDER BY r.n) AS ids, array_agg(r.actor_kind ORDER BY r.n) AS actor_kinds,
        array_agg(r.actor ORDER BY r.n) AS actors, array_agg(r.action ORDER BY r.n) AS actions,
        array_agg(r.target ORDER BY r.n) AS targets, array_agg(r.request_id ORDER BY r.n) AS request_ids,
        array_agg(r.at ORDER BY r.n) AS ats
      FROM unnest(p_chains, p_ids, p_actor_kinds, p_actors, p_actions, p_targets, p_request_ids, p_ats)
        WITH ORDINALITY AS r(chain, id, actor_kind, actor, action, target, request_id, at, n)
      GROUP BY r.chain
      ORDER BY r.chain) AS c);
END $$`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(appendFunction).execute(db);
  await sql.raw(appendChainsFunction).execute(db);
}

// Decision 1085: 0395's and 0430's functions put back (their texts create, so the ones here are dropped first).
export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION cobro_audit_append_chains(TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TIMESTAMPTZ[])`.execute(
    db,
  );
  await sql`DROP FUNCTION cobro_audit_append(TEXT, TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TIMESTAMPTZ[])`.execute(
    db,
  );
  await sql.raw(upsertHeadFunction).execute(db);
  await sql.raw(upsertHeadChainsFunction).execute(db);
}

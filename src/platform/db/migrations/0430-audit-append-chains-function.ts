import { sql, type Kysely } from 'kysely';

// Decisions 590 and 605: a group commit's write statement appends its requests' audit rows, which may belong to
// several chains (a payout group shared by accounts), with one call: the rows grouped by chain, each chain's rows in
// the order given, one cobro_audit_append (migration 0395) a chain, chains in the order of their names. It answers
// the number of chains appended to. PL/pgSQL so its query is planned once per connection (a SQL function's would be
// planned on every call). Created with one statement of its own, not through runSql, so its body may end lines with
// semicolons.
/** Exported for 0590's `down`, which puts this function back (decision 1085). */
export const appendChainsFunction = `
CREATE FUNCTION cobro_audit_append_chains(p_chains TEXT[], p_ids TEXT[], p_actor_kinds TEXT[], p_actors TEXT[],
    p_actions TEXT[], p_targets TEXT[], p_request_ids TEXT[], p_ats TIMESTAMPTZ[])
  RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
BEGIN
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
  await sql.raw(appendChainsFunction).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION cobro_audit_append_chains(TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TIMESTAMPTZ[])`.execute(
    db,
  );
}

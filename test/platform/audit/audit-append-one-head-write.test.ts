// Decision 765: cobro_audit_append (migration 0590) writes a chain's head once a call, where migration 0395's upsert
// wrote it a second time to take its lock; the rows it writes, and so the hashes `cobro audit verify` recomputes,
// are those 0395 wrote from the same input, and a chain written before the migration goes on after it.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up as up0395 } from '../../../src/platform/db/migrations/0395-audit-append-function.ts';
import { up as up0430 } from '../../../src/platform/db/migrations/0430-audit-append-chains-function.ts';
import { up as up0590 } from '../../../src/platform/db/migrations/0590-audit-append-one-head-write.ts';
import { verifyAudit } from '../../../src/platform/audit/verify.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** Puts back migrations 0395 and 0430's functions, as a database migrated before 0590 has them. */
async function installPrevious(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION cobro_audit_append_chains(TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TIMESTAMPTZ[])`.execute(
    db,
  );
  await sql`DROP FUNCTION cobro_audit_append(TEXT, TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[], TIMESTAMPTZ[])`.execute(
    db,
  );
  await up0395(db);
  await up0430(db);
}

/** Appends rows n..n+count-1 of a fixed series to the chains given (one a row), through the group's function. */
async function appendSeries(db: Kysely<any>, chains: readonly string[], n: number): Promise<void> {
  const rows = chains.map((_, i) => n + i);
  await sql`SELECT cobro_audit_append_chains(${chains}::text[], ${rows.map((r, i) => `aud_${chains[i]}_${r}`)}::text[],
    ${rows.map(() => 'api_key')}::text[], ${rows.map(() => 'key:primary')}::text[],
    ${rows.map((r) => `POST /api/transaction #${r}`)}::text[], ${rows.map((r) => (r % 3 === 0 ? null : `trx_${r}`))}::text[],
    ${rows.map((r) => `req-${r}`)}::text[],
    ${rows.map((r) => new Date(Date.UTC(2026, 10, 28, 12, 0, 0, r)))}::timestamptz[])`.execute(db);
}

async function chainRows(db: Kysely<any>, prefix: string): Promise<unknown[]> {
  const { rows } =
    await sql`SELECT chain, seq::text AS position, id, actor_kind, actor, action, target, request_id, at,
    prev_hash, hash FROM audit_log WHERE chain LIKE ${`${prefix}%`} ORDER BY chain, seq`.execute(
      db,
    );
  return rows;
}

async function headWrites(db: Kysely<any>): Promise<number> {
  const { rows } = await sql<{ writes: string }>`SELECT (n_tup_ins + n_tup_upd)::text AS writes
    FROM pg_stat_xact_user_tables WHERE relname = 'audit_heads'`.execute(db);
  return Number(rows[0]?.writes ?? 0);
}

describe('cobro_audit_append (decision 765)', () => {
  it("writes the chain's head once a call, and a new chain's head once more to create it", async () => {
    const counts = await t.ctx.db.transaction().execute(async (tx) => {
      const before = await headWrites(tx);
      await appendSeries(tx, ['chain_765_heads', 'chain_765_heads', 'chain_765_heads'], 1);
      const created = await headWrites(tx);
      await appendSeries(tx, ['chain_765_heads', 'chain_765_heads'], 4);
      return { created: created - before, appended: (await headWrites(tx)) - created };
    });
    expect(counts).toEqual({ created: 2, appended: 1 });
  });

  it('writes the rows, hash for hash, that the function it replaces wrote from the same input', async () => {
    const input = ['chain_765_same_a', 'chain_765_same_b', 'chain_765_same_a', 'chain_765_same_a'];
    const earlier = await t.ctx.db
      .transaction()
      .execute(async (tx) => {
        await installPrevious(tx);
        await appendSeries(tx, input, 1);
        await appendSeries(tx, input.slice(0, 1).concat(input.slice(0, 1)), 5);
        throw { rows: await chainRows(tx, 'chain_765_same') };
      })
      .catch((thrown: { rows?: unknown[] }) => {
        if (thrown.rows === undefined) throw thrown;
        return thrown.rows;
      });
    expect(earlier).toHaveLength(6);
    await appendSeries(t.ctx.db, input, 1);
    await appendSeries(t.ctx.db, input.slice(0, 1).concat(input.slice(0, 1)), 5);
    expect(await chainRows(t.ctx.db, 'chain_765_same')).toEqual(earlier);
  });

  it('goes on with a chain written before migration 0590, and audit verify accepts both parts', async () => {
    const chain = 'chain_765_upgrade';
    await installPrevious(t.ctx.db);
    try {
      await appendSeries(t.ctx.db, [chain, chain, chain], 100);
      await appendSeries(t.ctx.db, [chain], 103);
    } finally {
      await up0590(t.ctx.db);
    }
    await appendSeries(t.ctx.db, [chain, chain], 104);
    await appendSeries(t.ctx.db, [chain, 'chain_765_upgrade_other'], 106);
    const rows = (await chainRows(t.ctx.db, chain)) as Array<{ chain: string; position: string }>;
    expect(rows.filter((r) => r.chain === chain).map((r) => r.position)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
    ]);
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('queues concurrent writers of one chain, a new one included, into one unbroken chain', async () => {
    const chain = 'chain_765_race';
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.ctx.db.transaction().execute((tx) => appendSeries(tx, [chain, chain], 200 + 2 * i)),
      ),
    );
    const rows = (await chainRows(t.ctx.db, chain)) as Array<{ position: string }>;
    expect(rows.map((r) => r.position)).toEqual(
      Array.from({ length: 16 }, (_, i) => String(i + 1)),
    );
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });
});

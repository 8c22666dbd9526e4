// Named prepared statements on PGlite (decision 340): a text sent a second time is parsed once under a name and
// executed by Bind/Execute from then on, answering exactly what PGlite's own query answers (values serialized by
// the parameters' types, rows parsed by the columns'), inside and outside transactions, with PostgreSQL's errors,
// and never between the statements of another transaction. The switch turns it off.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';

let on: DatabaseHandle;
let off: DatabaseHandle;

const setUp = async (db: Kysely<any>) => {
  await sql`CREATE TABLE things (id int8 PRIMARY KEY, name text NOT NULL UNIQUE, at timestamptz, body jsonb, done boolean, amount numeric)`.execute(db);
};

beforeAll(async () => {
  on = await openDatabase({ engine: 'pglite', dataDir: null });
  off = await openDatabase({ engine: 'pglite', dataDir: null, preparedStatements: false });
  await setUp(on.db);
  await setUp(off.db);
});

afterAll(async () => {
  await on.close();
  await off.close();
});

const preparedTexts = async (h: DatabaseHandle) =>
  (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(h.db)).rows.map((r) => r.statement);

const insert = (db: Kysely<any>, id: bigint, name: string, at: Date | null, body: unknown, done: boolean | null, amount: string | null) =>
  sql`INSERT INTO things (id, name, at, body, done, amount) VALUES (${id}, ${name}, ${at}, ${body === null ? null : JSON.stringify(body)}, ${done}, ${amount}) RETURNING *`.execute(db);

const byName = (db: Kysely<any>, name: string) => sql<Record<string, unknown>>`SELECT * FROM things WHERE name = ${name}`.execute(db);

describe('prepared statements on PGlite', () => {
  it('prepares a text sent twice once, and answers exactly what PGlite answers unnamed', async () => {
    const at = new Date('2026-11-26T12:34:56.789Z');
    const rows: { on: unknown[]; off: unknown[] } = { on: [], off: [] };
    const written: Parameters<typeof insert> extends [unknown, ...infer Values] ? Values[] : never = [
      [1n, 'a', at, { k: [1, 'x'] }, true, '12.50'], [2n, 'b', null, null, null, null], [9_007_199_254_740_993n, 'c', at, 'text', false, '-1'],
    ];
    for (const [i, values] of written.entries()) {
      for (const [key, h] of [['on', on], ['off', off]] as const) {
        const inserted = await insert(h.db, ...values);
        expect(inserted.numAffectedRows).toBe(1n);
        rows[key].push(inserted.rows[0], (await byName(h.db, values[1])).rows[0]);
      }
      if (i === 0) expect((await preparedTexts(on)).filter((t) => t.includes('things'))).toEqual([]);
    }
    expect(rows.on).toEqual(rows.off);
    expect(rows.on[0]).toEqual({ id: 1n, name: 'a', at, body: { k: [1, 'x'] }, done: true, amount: '12.50' });
    expect((rows.on[5] as { id: bigint }).id).toBe(9_007_199_254_740_993n);
    // The INSERT and the SELECT, each named once.
    expect((await preparedTexts(on)).filter((t) => t.includes('things'))).toHaveLength(2);
    expect(await preparedTexts(off)).toEqual([]);
    const updated = await sql`UPDATE things SET done = ${true} WHERE id > ${0}`.execute(on.db);
    await sql`UPDATE things SET done = ${true} WHERE id > ${0}`.execute(on.db);
    expect(updated.numAffectedRows).toBe(3n);
  });

  it('answers PostgreSQL\'s errors through a named statement and goes on', async () => {
    await insert(on.db, 10n, 'dup', null, null, null, null);
    // Named by now (this INSERT's text ran in the test before): the same name twice breaks the UNIQUE.
    await expect(insert(on.db, 11n, 'dup', null, null, null, null)).rejects.toMatchObject({ code: '23505' });
    await expect(on.db.transaction().execute(async (tx) => {
      await insert(tx, 12n, 'in-tx', null, null, null, null);
      await insert(tx, 13n, 'dup', null, null, null, null);
    })).rejects.toMatchObject({ code: '23505' });
    // The transaction rolled back whole, and the connection serves the next statements.
    expect((await byName(on.db, 'in-tx')).rows).toEqual([]);
    await on.db.transaction().execute(async (tx) => { await insert(tx, 14n, 'committed', null, null, null, null); });
    await expect(on.db.transaction().execute(async (tx) => {
      await insert(tx, 15n, 'rolled-back', null, null, null, null);
      throw new Error('changed my mind');
    })).rejects.toThrow('changed my mind');
    expect((await byName(on.db, 'committed')).rows).toHaveLength(1);
    expect((await byName(on.db, 'rolled-back')).rows).toEqual([]);
  });

  it('never runs between the statements of a transaction in progress', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let inserted!: () => void;
    const insertedInTx = new Promise<void>((resolve) => { inserted = resolve; });
    const transaction = on.db.transaction().execute(async (tx) => {
      await insert(tx, 20n, 'held', null, null, null, null);
      inserted();
      await held;
    });
    await insertedInTx;
    let read: Record<string, unknown>[] | null = null;
    const reading = byName(on.db, 'held').then((r) => { read = r.rows; });
    await new Promise((r) => setTimeout(r, 50));
    // Waiting for the transaction, as PGlite's own query does: inside it, it would have seen the uncommitted row.
    expect(read).toBeNull();
    release();
    await transaction;
    await reading;
    expect(read).toHaveLength(1);
  });

  it('fails once when a migration changes a prepared SELECT\'s columns, then runs it unnamed', async () => {
    const all = () => sql<Record<string, unknown>>`SELECT * FROM things WHERE id = ${1n}`.execute(on.db);
    await all();
    await all();
    expect((await preparedTexts(on)).some((t) => t.includes('SELECT * FROM things WHERE id'))).toBe(true);
    await sql`ALTER TABLE things ADD COLUMN extra text NOT NULL DEFAULT 'new'`.execute(on.db);
    await expect(all()).rejects.toThrow(/cached plan must not change result type/);
    expect((await all()).rows[0]).toMatchObject({ id: 1n, extra: 'new' });
    expect((await all()).rows[0]).toMatchObject({ id: 1n, extra: 'new' });
  });
});

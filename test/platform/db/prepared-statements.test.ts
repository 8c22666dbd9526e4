// Named prepared statements on PostgreSQL (decision 230): a text sent a second time is prepared once per
// connection and reused; a one-off text is not; the switch turns it off; a statement whose table changed shape
// under it fails once (as PostgreSQL says) and runs unnamed from then on. The naming itself is unit-tested on
// both engines.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import { StatementNames } from '../../../src/platform/db/prepared-statements.ts';
import { limits } from '../../../src/limits/index.ts';

describe('StatementNames', () => {
  it('names a text from its second use, the same name every time after, and never a text past the longest', () => {
    const names = new StatementNames();
    expect(names.nameFor('SELECT 1')).toBeNull();
    const name = names.nameFor('SELECT 1');
    expect(name).toMatch(/^cobro_[0-9a-f]{32}$/);
    expect(names.nameFor('SELECT 1')).toBe(name);
    expect(names.nameFor('SELECT 2')).toBeNull();
    const long = `SELECT '${'x'.repeat(limits.dbPreparedTextLengthMax)}'`;
    expect(names.nameFor(long)).toBeNull();
    expect(names.nameFor(long)).toBeNull();
    expect(names.size).toBe(1);
  });
});

describe('ON CONFLICT on a partial index', () => {
  it("names the index's predicate with literals, never parameters, everywhere in src", () => {
    // A prepared statement's generic plan cannot prove a partial index's predicate from a parameter: PostgreSQL
    // answers "there is no unique or exclusion constraint matching the ON CONFLICT specification".
    const offending: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts')) {
          for (const m of fs
            .readFileSync(file, 'utf8')
            .matchAll(/onConflict\(\(oc\) => oc\.columns?\([^)]*\)\.where\(([^)]*\)?)\)/g)) {
            if (!/sql\.lit\(|'is', null/.test(m[1]!)) offending.push(`${file}: ${m[0]}`);
          }
        }
      }
    };
    walk(path.resolve(import.meta.dirname, '../../../src'));
    expect(offending).toEqual([]);
  });
});

const url = process.env.DATABASE_URL;

describe.runIf(url !== undefined && url !== '')('prepared statements on PostgreSQL', () => {
  const dbName = `cobro_prepared_${crypto.randomBytes(4).toString('hex')}`;
  const dbUrl = (() => {
    const u = new URL(url ?? 'postgres://localhost/x');
    u.pathname = `/${dbName}`;
    return u.toString();
  })();
  let on: DatabaseHandle;
  let off: DatabaseHandle;

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    // One connection each, so every statement below runs on the connection whose prepared statements it lists.
    on = await openDatabase({ engine: 'postgres', url: dbUrl, poolSizeMax: 1 });
    off = await openDatabase({
      engine: 'postgres',
      url: dbUrl,
      poolSizeMax: 1,
      preparedStatements: false,
    });
    await sql`CREATE TABLE shapes (id int PRIMARY KEY, a text)`.execute(on.db);
    await sql`INSERT INTO shapes VALUES (1, 'one')`.execute(on.db);
  });

  afterAll(async () => {
    await on.close();
    await off.close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  });

  const preparedTexts = async (h: DatabaseHandle) =>
    (
      await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(h.db)
    ).rows.map((r) => r.statement);

  it('prepares a text sent twice once, and answers the same through it', async () => {
    const read = (h: DatabaseHandle) =>
      sql<{ a: string }>`SELECT a FROM shapes WHERE id = ${1}`.execute(h.db);
    expect((await read(on)).rows).toEqual([{ a: 'one' }]);
    expect((await preparedTexts(on)).filter((t) => t.includes('FROM shapes'))).toEqual([]);
    for (let i = 0; i < 3; i++) expect((await read(on)).rows).toEqual([{ a: 'one' }]);
    expect((await preparedTexts(on)).filter((t) => t.includes('FROM shapes'))).toHaveLength(1);
    for (let i = 0; i < 3; i++) expect((await read(off)).rows).toEqual([{ a: 'one' }]);
    expect(await preparedTexts(off)).toEqual([]);
  });

  it("fails once when a migration changes a prepared SELECT's columns, then runs it unnamed", async () => {
    const all = () =>
      sql<Record<string, unknown>>`SELECT * FROM shapes WHERE id = ${1}`.execute(on.db);
    await all();
    await all();
    expect((await preparedTexts(on)).some((t) => t.includes('SELECT * FROM shapes'))).toBe(true);
    await sql`ALTER TABLE shapes ADD COLUMN b text NOT NULL DEFAULT 'two'`.execute(off.db);
    await expect(all()).rejects.toThrow(/cached plan must not change result type/);
    expect((await all()).rows).toEqual([{ id: 1, a: 'one', b: 'two' }]);
    expect((await all()).rows).toEqual([{ id: 1, a: 'one', b: 'two' }]);
  });
});

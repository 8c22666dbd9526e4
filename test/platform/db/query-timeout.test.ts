// Decision 685: a statement PostgreSQL does not answer within `cobro serve`'s bound fails as an outage (503) and
// closes its connection, so the pool never hands out a connection with the dead statement still active on it.
// Before, there was no bound (a host gone silent hung every request on it), and pg's own query_timeout alone would
// have put the connection back in the pool with the next query queued behind the unanswered one.
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import { isDatabaseUnavailable } from '../../../src/platform/db/outage.ts';
import { cloneTestDatabase, type TestDatabaseHandle } from '../../support/database.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

describe.runIf(onPostgres)('a statement past the query bound', () => {
  const opened: DatabaseHandle[] = [];
  afterAll(async () => {
    for (const h of opened.reverse()) await h.close().catch(() => {});
  });

  it('fails as an outage and closes its connection; the next statement gets a new one at once', {
    timeout: 20_000,
  }, async () => {
    const database: TestDatabaseHandle = await cloneTestDatabase();
    opened.push(database);
    const handle = await openDatabase({
      engine: 'postgres',
      url: database.url!,
      poolSizeMax: 1,
      queryTimeoutMs: 300,
    });
    opened.push(handle);
    // The server keeps sleeping for 60 s: to the pool, a statement that is never answered.
    const late = await sql`SELECT pg_sleep(60)`.execute(handle.db).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(late)).toBe(true);
    // One connection in the pool: without the close, this waited behind the sleep for a minute.
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(handle.db);
    expect(rows).toEqual([{ one: 1 }]);
  });
});

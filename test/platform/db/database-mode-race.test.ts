// Two processes starting at once on a database with no mode recorded (several `cobro serve`s of one deployment on
// one PostgreSQL): the one whose record waits on the other's uncommitted row must read the mode the other recorded.
// With `ON CONFLICT DO NOTHING` the waiting statement's own snapshot never saw that row, so it read nothing and the
// start failed with "the database mode was neither recorded nor read" (seen in CI's http-races, two servers on one
// database; decision 955's record).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertDatabaseMode } from '../../../src/platform/db/database-mode.ts';
import { cloneTestDatabase, type TestDatabaseHandle } from '../../support/database.ts';

let handle: TestDatabaseHandle;
beforeAll(async () => {
  handle = await cloneTestDatabase();
});
afterAll(async () => {
  await handle?.close();
});

describe.skipIf(!process.env.DATABASE_URL)('recording the database mode', () => {
  it('reads the mode another start is committing, instead of failing', async () => {
    const other = new pg.Client({ connectionString: handle.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`INSERT INTO cobro_meta (key, value) VALUES ('mode', 'sandbox')`);
      // This start's record waits on the other's row; the other commits while it waits.
      const recording = assertDatabaseMode(handle.db, 'sandbox', 'the test database', true);
      await new Promise((r) => setTimeout(r, 300));
      await other.query('COMMIT');
      await expect(recording).resolves.toBeUndefined();
    } finally {
      await other.end();
    }
  });

  it('refuses the other mode the other start committed', async () => {
    await expect(
      assertDatabaseMode(handle.db, 'production', 'the test database', true),
    ).rejects.toThrow(/is a sandbox database/);
  });
});

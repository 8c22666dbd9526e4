// Opening the embedded database keeps Node's event loop alive (decision 410): PGlite.create waits on WebAssembly
// compiles and file reads that hold no handle, and a loop with nothing to wait on drains V8's background tasks in
// NodePlatform::DrainTasks, where a fresh start deadlocked (Node issue 54918). A ref'd timer runs from the call
// until the database is open, and not after.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/db/database.ts';

const timers = () =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

describe('opening PGlite', () => {
  it('holds a timer on the event loop while PGlite opens, and only then', async () => {
    const before = timers();
    const opening = openDatabase({ engine: 'pglite', dataDir: null });
    // openDatabase has reached PGlite.create: its timer is there before anything else could run.
    expect(timers()).toBe(before + 1);
    const handle = await opening;
    try {
      // Gone once open (vitest's own timers may come and go meanwhile, never more of them).
      expect(timers()).toBeLessThanOrEqual(before);
      expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(handle.db)).rows).toEqual([
        { one: 1 },
      ]);
    } finally {
      await handle.close();
    }
  });
});

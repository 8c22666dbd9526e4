// The embedded database's maintenance vacuum (decision 986): PGlite runs no autovacuum, so every UPDATE's dead row
// version kept its space and a table updated over and over grew without end. The worker vacuums (plain, table by
// table) every table at a process's start and then, hourly, those with dead rows; on PostgreSQL it does nothing.
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/platform/context.ts';
import { vacuumCandidates, vacuumTable } from '../../src/platform/db/vacuum.ts';
import { startWorkers } from '../../src/workers/index.ts';
import { embeddedVacuumWorkerAfter } from '../../src/workers/embedded-vacuum-worker.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { runVacuumWorker } from '../support/embedded-vacuum.ts';
import { manyDelivered } from '../platform/notifications/retention-helpers.ts';

const embedded = process.env.DATABASE_URL === undefined;
const callbacks = 2000;
const cycles = 6;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

function withLogs(ctx: AppContext, logs: Array<Record<string, unknown>>): AppContext {
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { ...ctx, logger };
}

const outboxBytes = async (app: TestApp) => {
  const { rows } = await sql<{ bytes: string | number }>`
    SELECT pg_total_relation_size('notifications') AS bytes`.execute(app.ctx.db);
  return Number(rows[0]?.bytes);
};

/** What a delivery does to each callback of the account: claimed (delivering, one more attempt), then delivered. */
async function deliveryCycle(app: TestApp, accountId: string): Promise<void> {
  await sql`UPDATE notifications SET status = 'delivering', attempts = attempts + 1
    WHERE account_id = ${accountId}`.execute(app.ctx.db);
  await sql`UPDATE notifications SET status = 'delivered' WHERE account_id = ${accountId}`.execute(
    app.ctx.db,
  );
}

/** The outbox's size after each of `cycles` delivery cycles over `callbacks` callbacks. */
async function sizesOver(app: TestApp, vacuumBetween: boolean): Promise<number[]> {
  const a = await app.createAccount('Ciclos');
  await manyDelivered(app, a.id, callbacks, 1);
  await runVacuumWorker(app);
  const sizes: number[] = [];
  for (let i = 0; i < cycles; i++) {
    await deliveryCycle(app, a.id);
    if (vacuumBetween) await runVacuumWorker(app);
    sizes.push(await outboxBytes(app));
  }
  return sizes;
}

/** The last cycle's size to the second's: 1 when the table stopped growing (a cycle's new versions need room). */
const growthAfterSecond = (sizes: number[]) => sizes.at(-1)! / sizes[1]!;

describe.runIf(embedded)('the embedded database maintenance vacuum', () => {
  it('keeps a table updated cycle after cycle bounded, where without it the table grows with every cycle', {
    timeout: 120_000,
  }, async () => {
    // Without the worker every cycle's dead versions keep their space: the table grows by a cycle's writes every
    // cycle (measured: 2.3 times from the second cycle to the sixth; with the worker 1.0).
    const bare = await startTestApp();
    try {
      expect(growthAfterSecond(await sizesOver(bare, false))).toBeGreaterThan(2);
    } finally {
      await bare.close();
    }
    // With the worker between cycles the same cycles reuse the space: the size stops where the second cycle left it.
    expect(growthAfterSecond(await sizesOver(t, true))).toBeLessThan(1.2);
  });

  it('vacuums table by table and says how long it held the database; the hourly run takes only changed tables', {
    timeout: 60_000,
  }, async () => {
    const done = await runVacuumWorker(t);
    const { rows } = await sql<{ n: string | number }>`
      SELECT count(*) AS n FROM pg_stat_user_tables WHERE schemaname = current_schema()`.execute(
      t.ctx.db,
    );
    expect(done.tables).toBe(Number(rows[0]?.n));
    expect(done.heldMs).toEqual(expect.any(Number));
    expect(done.longestMs).toBeLessThanOrEqual(done.heldMs as number);
    expect(done.longestTable).toEqual(expect.any(String));

    const a = await t.createAccount('Cambiada');
    await manyDelivered(t, a.id, 10, 1);
    await deliveryCycle(t, a.id);
    expect(await vacuumCandidates(t.ctx.db, true)).toContain('notifications');
    await vacuumTable(t.ctx.db, 'notifications');
    const changed = await vacuumCandidates(t.ctx.db, true);
    expect(changed).not.toContain('notifications');
    expect(changed).not.toContain('banks');
    expect(await vacuumCandidates(t.ctx.db, false)).toContain('banks');
  });
});

describe.runIf(!embedded)('on PostgreSQL', () => {
  it('runs nothing: autovacuum does it', async () => {
    const logs: Array<Record<string, unknown>> = [];
    const workers = startWorkers(withLogs(t.ctx, logs), [embeddedVacuumWorkerAfter(0)]);
    await new Promise((r) => setTimeout(r, 300));
    await workers.stop();
    expect(logs.find((l) => l.msg === 'embedded database vacuumed')).toBeUndefined();
  });
});

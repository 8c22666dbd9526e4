// Callback retention on several processes' workers (decision 994, PostgreSQL): the prune claims its batch FOR UPDATE
// SKIP LOCKED, so a second worker takes other rows while the first holds its batch, never waits on it, and no row is
// counted twice; and two workers draining one backlog together delete each callback once, with no step failing.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../../../src/limits/index.ts';
import { pruneFinalNotifications } from '../../../src/platform/notifications/prune.ts';
import { inTransaction } from '../../../src/platform/db/unit-of-work.ts';
import { startWorkers } from '../../../src/workers/index.ts';
import { notificationRetentionWorker } from '../../../src/workers/notification-retention-worker.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { callbackAged, manyDelivered } from './retention-helpers.ts';

const onPostgres = process.env.DATABASE_URL !== undefined;
const dayMs = 24 * 60 * 60 * 1000;

describe.runIf(onPostgres)('callback retention on PostgreSQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const left = async (accountId: string) =>
    Number(
      (
        await t.ctx.db
          .selectFrom('notifications')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('a second prune takes other rows at once while the first holds its batch', async () => {
    const a = await t.createAccount('Dos a la vez');
    const batchMax = limits.notificationPruneBatchMax;
    await manyDelivered(t, a.id, batchMax + 100, 40);
    const before = new Date(t.clock.now().getTime() - 30 * dayMs);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let firstClaimed!: () => void;
    const claimed = new Promise<void>((r) => (firstClaimed = r));
    const first = inTransaction(t.ctx.db, async (tx) => {
      const pruned = await pruneFinalNotifications(tx, before, batchMax);
      firstClaimed();
      await held;
      return pruned;
    });
    await claimed;
    const second = await Promise.race([
      pruneFinalNotifications(t.ctx.db, before, batchMax),
      new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), 5_000)),
    ]);
    release();
    expect(second).toEqual({ notifications: 100, attempts: 200 });
    expect(await first).toEqual({ notifications: batchMax, attempts: 2 * batchMax });
    expect(await left(a.id)).toBe(0);
  });

  it('skips a callback a resend holds, and keeps it once the resend made it pending', async () => {
    const a = await t.createAccount('Reenvío');
    const id = await callbackAged(t, a.id, 'failed', 40);
    const before = new Date(t.clock.now().getTime() - 30 * dayMs);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // What retryNotification does: the row FOR UPDATE, then back to pending.
    const resend = inTransaction(t.ctx.db, async (tx) => {
      await tx.selectFrom('notifications').select('id').where('id', '=', id).forUpdate().execute();
      locked();
      await held;
      await tx
        .updateTable('notifications')
        .set({ status: 'pending', updated_at: t.clock.now() })
        .where('id', '=', id)
        .execute();
    });
    await isLocked;
    const during = await Promise.race([
      pruneFinalNotifications(t.ctx.db, before, limits.notificationPruneBatchMax),
      new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), 5_000)),
    ]);
    release();
    await resend;
    expect(during).toEqual({ notifications: 0, attempts: 0 });
    await pruneFinalNotifications(t.ctx.db, before, limits.notificationPruneBatchMax);
    expect(await left(a.id)).toBe(1);
  });

  it('two workers drain one backlog together: each callback deleted once, no step failing', {
    timeout: 60_000,
  }, async () => {
    const a = await t.createAccount('Atraso');
    const total = 6 * limits.notificationPruneBatchMax + 3;
    await manyDelivered(t, a.id, total, 50);
    const logs: Array<Record<string, unknown>> = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const one = await startTestApp({ sharing: t, logger });
    const two = await startTestApp({ sharing: t, logger });
    const workers = [
      startWorkers(one.ctx, [notificationRetentionWorker]),
      startWorkers(two.ctx, [notificationRetentionWorker]),
    ];
    try {
      for (let i = 0; i < 400 && (await left(a.id)) > 0; i++)
        await new Promise((r) => setTimeout(r, 50));
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await one.close();
      await two.close();
    }
    expect(await left(a.id)).toBe(0);
    const pruned = logs.filter((l) => l.msg === 'callbacks pruned');
    expect(pruned.reduce((sum, l) => sum + Number(l.notifications), 0)).toBe(total);
    expect(pruned.reduce((sum, l) => sum + Number(l.attempts), 0)).toBe(2 * total);
    expect(logs.filter((l) => Number(l.level) >= 40)).toEqual([]);
  });
});

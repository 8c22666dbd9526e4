// Callback retention (decision 994): nothing deleted a callback before, so the outbox and its attempt log grew with
// the business (decision 970, left). Delivered and failed callbacks whose last attempt is older than
// CALLBACK_RETENTION_DAYS go with their attempts, a bounded batch at a time; pending, delivering and young ones
// stay, and so do the ones an audit row or a destination change names. A pruned id answers as an unknown one.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../../../src/limits/index.ts';
import { pruneFinalNotifications } from '../../../src/platform/notifications/prune.ts';
import { verifyAudit } from '../../../src/platform/audit/verify.ts';
import { startWorkers } from '../../../src/workers/index.ts';
import { notificationRetentionWorker } from '../../../src/workers/notification-retention-worker.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { runVacuumWorker } from '../../support/embedded-vacuum.ts';
import { dashboardBrowser } from '../../support/dashboard.ts';
import { runOnContext } from '../../support/cli-in-process.ts';
import { callbackAged, manyDelivered, remaining } from './retention-helpers.ts';

const dayMs = 24 * 60 * 60 * 1000;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** Runs the retention worker until `done` holds (or 10 s), then stops it. */
async function runWorkerUntil(done: () => Promise<boolean>): Promise<void> {
  const workers = startWorkers(t.ctx, [notificationRetentionWorker]);
  try {
    for (let i = 0; i < 200 && !(await done()); i++) await new Promise((r) => setTimeout(r, 50));
  } finally {
    await workers.stop();
  }
}

describe('the retention worker', () => {
  it('deletes old delivered and failed callbacks with their attempts, and keeps pending, delivering and young ones', async () => {
    const a = await t.createAccount('Retención');
    const oldDelivered = await callbackAged(t, a.id, 'delivered', 40);
    const oldFailed = await callbackAged(t, a.id, 'failed', 31, 10);
    const oldPending = await callbackAged(t, a.id, 'pending', 40);
    const oldDelivering = await callbackAged(t, a.id, 'delivering', 40);
    const youngDelivered = await callbackAged(t, a.id, 'delivered', 29);
    const youngFailed = await callbackAged(t, a.id, 'failed', 1);
    const all = [oldDelivered, oldFailed, oldPending, oldDelivering, youngDelivered, youngFailed];
    await runWorkerUntil(async () => (await remaining(t, all)).notifications.size <= 4);
    const left = await remaining(t, all);
    expect([...left.notifications].sort()).toEqual(
      [oldPending, oldDelivering, youngDelivered, youngFailed].sort(),
    );
    expect([...left.attempted].sort()).toEqual([...left.notifications].sort());
  });

  it('keeps a callback an audit row names (a resend) and one a destination change names', async () => {
    const a = await t.createAccount('Referida');
    const resent = await callbackAged(t, a.id, 'failed', 60);
    const res = await t.call(a, { method: 'POST', url: `/api/notifications/${resent}/retry` });
    expect(res.statusCode, res.body).toBe(200);
    // The resend's schedule ended in failure long ago.
    await t.ctx.db
      .updateTable('notifications')
      .set({ status: 'failed', updated_at: new Date(t.clock.now().getTime() - 60 * dayMs) })
      .where('id', '=', resent)
      .execute();
    const noticed = await callbackAged(t, a.id, 'delivered', 60);
    await sql`INSERT INTO destination_changes (id, account_id, subject, subject_id, current, source, notification_id, changed_at)
      VALUES ('dch_retention', ${a.id}, 'account_bank', ${a.id}, '{}'::jsonb, 'cli', ${noticed}, ${t.clock.now()})`.execute(
      t.ctx.db,
    );
    const plain = await callbackAged(t, a.id, 'delivered', 60);
    await runWorkerUntil(async () => !(await remaining(t, [plain])).notifications.has(plain));
    const left = await remaining(t, [resent, noticed, plain]);
    expect([...left.notifications].sort()).toEqual([resent, noticed].sort());
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('deletes no more than a batch per statement, and the worker drains a backlog batch after batch', async () => {
    const a = await t.createAccount('Lotes');
    const batchMax = limits.notificationPruneBatchMax;
    await manyDelivered(t, a.id, 2 * batchMax + 7, 45);
    const before = new Date(t.clock.now().getTime() - 30 * dayMs);
    expect(await pruneFinalNotifications(t.ctx.db, before, batchMax)).toEqual({
      notifications: batchMax,
      attempts: 2 * batchMax,
    });
    const left = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('notifications')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('account_id', '=', a.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await left()).toBe(batchMax + 7);
    await runWorkerUntil(async () => (await left()) === 0);
    expect(await left()).toBe(0);
  });

  it.runIf(process.env.DATABASE_URL === undefined)(
    'on the embedded database, vacuums what it deleted: new callbacks reuse the space',
    { timeout: 60_000 },
    async () => {
      const size = async () => {
        const { rows } = await sql<{ bytes: string | number | bigint }>`
          SELECT pg_total_relation_size('notifications') + pg_total_relation_size('notification_attempts') AS bytes`.execute(
          t.ctx.db,
        );
        return Number(rows[0]?.bytes);
      };
      const count = 20_000;
      const first = await t.createAccount('Espacio 1');
      await manyDelivered(t, first.id, count, 60);
      const leftOf = async (accountId: string) =>
        (
          await t.ctx.db
            .selectFrom('notifications')
            .select('id')
            .where('account_id', '=', accountId)
            .limit(1)
            .execute()
        ).length;
      const filled = await size();
      await runWorkerUntil(async () => (await leftOf(first.id)) === 0);
      // The maintenance vacuum (decision 986, which took over this one) makes the deleted rows' space reusable.
      await runVacuumWorker(t);
      const second = await t.createAccount('Espacio 2');
      await manyDelivered(t, second.id, count, 60);
      // Without a vacuum PGlite reused none of it: the tables held twice the bytes (2.08 times, measured).
      expect((await size()) / filled).toBeLessThan(1.6);
      await runWorkerUntil(async () => (await leftOf(second.id)) === 0);
    },
  );

  it('deletes nothing with CALLBACK_RETENTION_DAYS=0', async () => {
    const keepAll = await startTestApp({ sharing: t, env: { CALLBACK_RETENTION_DAYS: '0' } });
    try {
      const a = await t.createAccount('Todo');
      const old = await callbackAged(t, a.id, 'delivered', 3000);
      const workers = startWorkers(keepAll.ctx, [notificationRetentionWorker]);
      await new Promise((r) => setTimeout(r, 300));
      await workers.stop();
      expect((await remaining(t, [old])).notifications.has(old)).toBe(true);
      await t.ctx.db
        .deleteFrom('notification_attempts')
        .where('notification_id', '=', old)
        .execute();
      await t.ctx.db.deleteFrom('notifications').where('id', '=', old).execute();
    } finally {
      await keepAll.close();
    }
  });
});

describe('a pruned callback', () => {
  it('answers 404 as an unknown id does, in the API and the dashboard, and leaves the list', async () => {
    const a = await t.createAccount('Podada');
    const pruned = await callbackAged(t, a.id, 'delivered', 90);
    const kept = await callbackAged(t, a.id, 'delivered', 2);
    const listed = async () =>
      (await t.call(a, { method: 'GET', url: '/api/notifications' })).json() as {
        total: number;
        notifications: { id: string }[];
      };
    expect((await listed()).total).toBe(2);
    await runWorkerUntil(async () => !(await remaining(t, [pruned])).notifications.has(pruned));
    const gone = await t.call(a, { method: 'GET', url: `/api/notifications/${pruned}` });
    const unknown = await t.call(a, { method: 'GET', url: '/api/notifications/msg_never' });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual(unknown.json());
    // As docs/callbacks.md gives it.
    expect(gone.json()).toEqual({
      status: 'failed',
      type: 'Not Found',
      message_error: 'notification not found',
      id: 'is not valid',
    });
    const retried = await t.call(a, { method: 'POST', url: `/api/notifications/${pruned}/retry` });
    expect(retried.statusCode).toBe(404);
    const page = await listed();
    expect(page.total).toBe(1);
    expect(page.notifications.map((n) => n.id)).toEqual([kept]);
    const browser = dashboardBrowser(t);
    await browser.signIn(a);
    expect((await browser.get(`/dashboard/callbacks/${pruned}`)).statusCode).toBe(404);
    const list = await browser.get('/dashboard/callbacks');
    expect(list.body).toContain(kept);
    expect(list.body).not.toContain(pruned);
    expect(list.body).toContain('30 días');
  });
});

describe('cobro notifications prune', () => {
  it('deletes to the bound it is given, prints what it deleted, and records one audit row', async () => {
    const a = await t.createAccount('Operador');
    const older = await callbackAged(t, a.id, 'failed', 20, 4);
    const newer = await callbackAged(t, a.id, 'delivered', 10);
    const rowsBefore = await auditRows();
    const countsBefore = await counts();
    const run = await runOnContext(['notifications', 'prune', '--older-than-days', '15'], t.ctx);
    expect(run.code, run.stderr).toBe(0);
    // What it says it deleted is what went (earlier tests' young rows among them).
    const countsAfter = await counts();
    expect(run.stdout).toBe(
      `deleted ${countsBefore.notifications - countsAfter.notifications} callbacks and ${countsBefore.attempts - countsAfter.attempts} attempts: delivered or failed, last attempt before 2026-02-23 12:00:00\n`,
    );
    expect(countsBefore.notifications - countsAfter.notifications).toBeGreaterThanOrEqual(1);
    const left = await remaining(t, [older, newer]);
    expect([...left.notifications]).toEqual([newer]);
    expect(await auditRows()).toEqual([
      ...rowsBefore,
      { chain: 'service', action: 'cobro notifications prune', target: 'older-than-days:15' },
    ]);
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
    // Nothing left to delete: said so, and no row.
    const again = await runOnContext(['notifications', 'prune', '--older-than-days', '15'], t.ctx);
    expect(again.stdout).toMatch(/^deleted 0 callbacks and 0 attempts/);
    expect(await auditRows()).toHaveLength(rowsBefore.length + 1);
  });

  it('refuses a bound out of range, with one line and exit 2', async () => {
    for (const bad of ['0', '3651', 'ten', '-5']) {
      const run = await runOnContext(['notifications', 'prune', '--older-than-days', bad], t.ctx);
      expect(run.code, bad).toBe(2);
      expect(run.stderr.trim()).toBe('--older-than-days must be an integer from 1 to 3650');
    }
  });
});

async function counts() {
  const { rows } = await sql<{ n: string; a: string }>`
    SELECT (SELECT count(*) FROM notifications) AS n, (SELECT count(*) FROM notification_attempts) AS a`.execute(
    t.ctx.db,
  );
  return { notifications: Number(rows[0]?.n), attempts: Number(rows[0]?.a) };
}

async function auditRows() {
  return t.ctx.db
    .selectFrom('audit_log')
    .select(['chain', 'action', 'target'])
    .where('action', '=', 'cobro notifications prune')
    .orderBy('seq')
    .execute();
}

// Callbacks in a given state and age for the retention tests (decision 994): written by enqueueCallback, then moved
// to the state and last-attempt time a delivery would have left, with that many attempts in their log.
import { sql } from 'kysely';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import type { NotificationStatus } from '../../../src/platform/notifications/types.ts';
import type { TestApp } from '../../support/app.ts';

const dayMs = 24 * 60 * 60 * 1000;

export async function callbackAged(
  t: TestApp,
  accountId: string,
  status: NotificationStatus,
  daysAgo: number,
  attempts = 3,
): Promise<string> {
  const at = new Date(t.clock.now().getTime() - daysAgo * dayMs);
  const id = await t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId,
      url: 'https://merchant.example/notify',
      eventType: 'transaction.result',
      payload: { payment_key: `pk-${daysAgo}-${status}` },
      at,
    }),
  );
  await t.ctx.db
    .updateTable('notifications')
    .set({
      status,
      attempts,
      updated_at: at,
      delivered_at: status === 'delivered' ? at : null,
      lease_until: status === 'delivering' ? new Date(t.clock.now().getTime() + 60_000) : null,
    })
    .where('id', '=', id)
    .execute();
  for (let n = 1; n <= attempts; n++)
    await t.ctx.db
      .insertInto('notification_attempts')
      .values({
        notification_id: id,
        attempt_no: n,
        lease_token: `lease${n}`,
        started_at: at,
        finished_at: at,
        outcome: n < attempts ? 'retry' : status === 'delivered' ? 'delivered' : 'failed',
        status_code: 500,
        latency_ms: 10,
        error: null,
        response_excerpt: null,
      })
      .execute();
  return id;
}

/** `count` delivered callbacks of `daysAgo` in one statement each table, with two attempts each. */
export async function manyDelivered(
  t: TestApp,
  accountId: string,
  count: number,
  daysAgo: number,
): Promise<void> {
  const at = new Date(t.clock.now().getTime() - daysAgo * dayMs);
  await sql`INSERT INTO notifications (id, account_id, url, event_type, payload, body, status, attempts,
      next_attempt_at, created_at, updated_at, delivered_at)
    SELECT 'msg_bulk' || ${accountId}::text || lpad(g::text, 6, '0'), ${accountId}, 'https://merchant.example/notify',
      'transaction.result', '{}'::jsonb, '{}', 'delivered', 2, ${at}::timestamptz, ${at}::timestamptz,
      ${at}::timestamptz + g * interval '1 millisecond', ${at}::timestamptz
    FROM generate_series(1, ${count}::int) g`.execute(t.ctx.db);
  await sql`INSERT INTO notification_attempts (notification_id, attempt_no, lease_token, started_at, finished_at, outcome)
    SELECT n.id, k, 'bulk', n.created_at, n.created_at, CASE k WHEN 1 THEN 'retry' ELSE 'delivered' END
    FROM notifications n CROSS JOIN generate_series(1, 2) k
    WHERE n.id LIKE 'msg_bulk' || ${accountId}::text || '%'`.execute(t.ctx.db);
}

export async function remaining(t: TestApp, ids: readonly string[]) {
  const rows = await t.ctx.db
    .selectFrom('notifications')
    .select('id')
    .where('id', 'in', ids)
    .execute();
  const attempts = await t.ctx.db
    .selectFrom('notification_attempts')
    .select('notification_id')
    .where('notification_id', 'in', ids)
    .execute();
  return {
    notifications: new Set(rows.map((r) => r.id)),
    attempted: new Set(attempts.map((a) => a.notification_id)),
  };
}

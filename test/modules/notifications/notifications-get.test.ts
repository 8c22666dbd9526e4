import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import {
  notificationStatuses,
  attemptOutcomes,
} from '../../../src/platform/notifications/types.ts';
import { OutcomeSchema, StatusSchema } from '../../../src/modules/notifications/schemas.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';

let t: TestApp;
let merchant: TestAccount;
let other: TestAccount;
let receiver: Receiver;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // 2026-03-10 12:00 in Santiago (UTC-3).
  t = await startTestApp({ clockStart: '2026-03-10T15:00:00Z' });
  merchant = await t.createAccount('Merchant');
  other = await t.createAccount('Other');
  receiver = await startReceiver((req) => (req.path.startsWith('/fail') ? 410 : 200));
  const enqueue = (accountId: string, path: string, eventType = 'transaction.result') =>
    t.ctx.db.transaction().execute((tx) =>
      enqueueCallback(tx, {
        accountId,
        url: receiver.url + path,
        eventType,
        payload: { order: path },
        at: t.clock.now(),
      }),
    );
  ids.delivered = await enqueue(merchant.id, '/ok');
  ids.failed = await enqueue(merchant.id, '/fail');
  await deliverDueNotifications(t.ctx);
  t.clock.advanceMs(24 * 3600_000);
  ids.pending = await enqueue(merchant.id, '/later', 'payout.result');
  ids.others = await enqueue(other.id, '/other');
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('GET /api/notifications', () => {
  it("lists the account's deliveries newest first with status, attempts and last error", async () => {
    const res = await t.call(merchant, { method: 'GET', url: '/api/notifications' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ status: 'success', page: 1, per_page: 50, total: 3 });
    expect(body.notifications.map((n: { id: string }) => n.id)).toEqual([
      ids.pending,
      ...[ids.failed, ids.delivered].sort().reverse(),
    ]);
    const failed = body.notifications.find((n: { id: string }) => n.id === ids.failed);
    expect(failed).toEqual({
      id: ids.failed,
      account_id: merchant.id,
      event_type: 'transaction.result',
      url: `${receiver.url}/fail`,
      status: 'failed',
      attempts: 1,
      last_status_code: 410,
      last_error: 'HTTP 410',
      next_attempt_at: null,
      created_at: '2026-03-10 12:00:00',
      delivered_at: null,
    });
    const pending = body.notifications.find((n: { id: string }) => n.id === ids.pending);
    expect(pending).toMatchObject({
      status: 'pending',
      attempts: 0,
      next_attempt_at: '2026-03-11 12:00:00',
      event_type: 'payout.result',
    });
  });

  it('filters by status and by creation day, and pages', async () => {
    const byStatus = (
      await t.call(merchant, { method: 'GET', url: '/api/notifications?status=delivered' })
    ).json();
    expect(byStatus.notifications.map((n: { id: string }) => n.id)).toEqual([ids.delivered]);
    expect(byStatus.notifications[0].delivered_at).toBe('2026-03-10 12:00:00');
    const firstDay = (
      await t.call(merchant, {
        method: 'GET',
        url: '/api/notifications?date_init=2026-03-10&date_end=2026-03-10',
      })
    ).json();
    expect(firstDay.total).toBe(2);
    const secondDay = (
      await t.call(merchant, { method: 'GET', url: '/api/notifications?date_init=2026-03-11' })
    ).json();
    expect(secondDay.notifications.map((n: { id: string }) => n.id)).toEqual([ids.pending]);
    const page2 = (
      await t.call(merchant, { method: 'GET', url: '/api/notifications?per_page=2&page=2' })
    ).json();
    expect(page2).toMatchObject({ page: 2, per_page: 2, total: 3 });
    expect(page2.notifications).toHaveLength(1);
  });

  it("refuses bad filters with the seed's validation envelope", async () => {
    const badStatus = await t.call(merchant, {
      method: 'GET',
      url: '/api/notifications?status=lost',
    });
    expect(badStatus.statusCode).toBe(400);
    expect(badStatus.json()).toMatchObject({ status: 'failed', errors: { status: 'invalid' } });
    const badDate = await t.call(merchant, {
      method: 'GET',
      url: '/api/notifications?date_init=10-03-2026',
    });
    expect(badDate.json()).toMatchObject({ errors: { date_init: 'invalid' } });
    const notADay = await t.call(merchant, {
      method: 'GET',
      url: '/api/notifications?date_end=2026-02-30',
    });
    expect(notADay.json()).toMatchObject({ errors: { date_end: 'invalid' } });
    const reversed = await t.call(merchant, {
      method: 'GET',
      url: '/api/notifications?date_init=2026-03-11&date_end=2026-03-10',
    });
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json()).toMatchObject({ errors: { date_end: 'invalid' } });
    const tooBig = await t.call(merchant, {
      method: 'GET',
      url: '/api/notifications?per_page=201',
    });
    expect(tooBig.json()).toMatchObject({ errors: { per_page: 'too large' } });
  });

  it('needs a token', async () => {
    const res = await t.call(null, { method: 'GET', url: '/api/notifications' });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /api/notifications/{id}', () => {
  it('shows the payload and every attempt', async () => {
    const res = await t.call(merchant, { method: 'GET', url: `/api/notifications/${ids.failed}` });
    expect(res.statusCode).toBe(200);
    const n = res.json().notification;
    expect(n).toMatchObject({ id: ids.failed, payload: { order: '/fail' }, status: 'failed' });
    expect(n.attempts_log).toEqual([
      {
        attempt: 1,
        started_at: '2026-03-10 12:00:00',
        finished_at: '2026-03-10 12:00:00',
        outcome: 'failed',
        status_code: 410,
        latency_ms: expect.any(Number),
        error: 'HTTP 410',
        response_excerpt: 'ok',
      },
    ]);
  });

  it("is 404 for another account's notification and for an unknown id", async () => {
    const res = await t.call(merchant, { method: 'GET', url: `/api/notifications/${ids.others}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Found', id: 'is not valid' });
    expect(
      (await t.call(merchant, { method: 'GET', url: '/api/notifications/msg_nope' })).statusCode,
    ).toBe(404);
  });
});

describe('documentation', () => {
  it('lists the routes in the OpenAPI document under Extensions', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(doc.paths['/api/notifications'].get.tags).toEqual(['Extensions']);
    expect(doc.paths['/api/notifications/{id}'].get.tags).toEqual(['Extensions']);
    expect(doc.paths['/api/notifications/{id}/retry'].post.tags).toEqual(['Extensions']);
  });

  it('schemas spell the same states as the table', () => {
    const consts = (schema: { anyOf: readonly object[] }) =>
      schema.anyOf.map((s) => (s as { const?: string }).const).filter((c) => c !== undefined);
    expect(consts(StatusSchema)).toEqual([...notificationStatuses]);
    expect(consts(OutcomeSchema)).toEqual([...attemptOutcomes]);
  });
});

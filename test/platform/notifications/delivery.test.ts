import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import {
  deliverDueNotifications,
  deliverWhileDue,
} from '../../../src/platform/notifications/deliver.ts';
import { recordAttempt } from '../../../src/platform/notifications/attempt-record.ts';
import {
  claimDueNotifications,
  lostAttemptError,
} from '../../../src/platform/notifications/claim.ts';
import { webhookSignature } from '../../../src/platform/notifications/sign.ts';
import { rotateAccount } from '../../../src/modules/accounts/service.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { limits, notificationAttemptsMax as attemptsMax } from '../../../src/limits/index.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { receiverPool } from '../../support/receiver.ts';

let t: TestApp;
let account: TestAccount;
const receivers = receiverPool();

beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});
afterEach(() => receivers.closeAll());

const receiver = receivers.start;

function enqueue(
  url: string,
  payload: Record<string, unknown> = { order: '199', status: 'success' },
  accountId = account.id,
): Promise<string> {
  return t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId,
      url,
      eventType: 'transaction.result',
      payload,
      at: t.clock.now(),
    }),
  );
}

function row(id: string) {
  return t.ctx.db
    .selectFrom('notifications')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

function attempts(id: string) {
  return t.ctx.db
    .selectFrom('notification_attempts')
    .selectAll()
    .where('notification_id', '=', id)
    .orderBy('attempt_no')
    .execute();
}

describe('callback delivery', () => {
  it('delivers once the enqueuing transaction commits', async () => {
    const r = await receiver();
    const id = await enqueue(`${r.url}/urlnotify?orderClient=199`, {
      transaction_id: '9916587765599311',
      order: '199',
      status: 'success',
    });
    expect(await deliverDueNotifications(t.ctx)).toBe(1);
    expect(r.requests).toHaveLength(1);
    const received = r.requests[0]!;
    expect(received.path).toBe('/urlnotify?orderClient=199');
    // The body is the payload as the money flow wrote it, keys in their order.
    expect(received.body).toBe(
      '{"transaction_id":"9916587765599311","order":"199","status":"success"}',
    );
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['user-agent']).toMatch(/^Cobro/);
    expect(received.headers['webhook-id']).toBe(id);
    expect(received.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const stored = await row(id);
    expect(stored).toMatchObject({
      status: 'delivered',
      attempts: 1,
      last_status_code: 200,
      lease_token: null,
    });
    expect(stored.delivered_at).toEqual(t.clock.now());
    expect(await deliverDueNotifications(t.ctx)).toBe(0);
    expect(r.requests).toHaveLength(1);
  });

  it('sends nothing when the enqueuing transaction rolls back', async () => {
    const r = await receiver();
    const failure = new Error('the money movement failed');
    await expect(
      t.ctx.db.transaction().execute(async (tx) => {
        await enqueueCallback(tx, {
          accountId: account.id,
          url: r.url,
          eventType: 'payout.result',
          payload: { id: 'mor1' },
          at: t.clock.now(),
        });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await deliverDueNotifications(t.ctx)).toBe(0);
    t.clock.advanceMs(60_000);
    expect(await deliverDueNotifications(t.ctx)).toBe(0);
    expect(r.requests).toHaveLength(0);
  });

  it('retries 500s on the schedule with the same webhook-id until a 200', async () => {
    const r = await receiver((_req, i) => (i < 3 ? { status: 500, body: 'database down' } : 200));
    const id = await enqueue(r.url);
    expect(await deliverDueNotifications(t.ctx)).toBe(1);
    let stored = await row(id);
    expect(stored).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      last_error: 'HTTP 500',
    });
    // About 5 s later (jitter up to 10 %): not before 4.5 s, due by 5.5 s.
    const firstRetryMs = stored.next_attempt_at.getTime() - t.clock.now().getTime();
    expect(firstRetryMs).toBeGreaterThanOrEqual(4500);
    expect(firstRetryMs).toBeLessThanOrEqual(5500);
    t.clock.advanceMs(4000);
    expect(await deliverDueNotifications(t.ctx)).toBe(0);
    t.clock.advanceMs(1600);
    expect(await deliverDueNotifications(t.ctx)).toBe(1);
    stored = await row(id);
    const secondRetryMs = stored.next_attempt_at.getTime() - t.clock.now().getTime();
    expect(secondRetryMs).toBeGreaterThanOrEqual(270_000);
    expect(secondRetryMs).toBeLessThanOrEqual(330_000);
    t.clock.advanceMs(330_000);
    expect(await deliverDueNotifications(t.ctx)).toBe(1);
    t.clock.advanceMs(33 * 60_000);
    expect(await deliverDueNotifications(t.ctx)).toBe(1);

    expect(r.requests.map((q) => q.headers['webhook-id'])).toEqual([id, id, id, id]);
    expect(await row(id)).toMatchObject({
      status: 'delivered',
      attempts: 4,
      last_status_code: 200,
      last_error: null,
    });
    const log = await attempts(id);
    expect(log.map((a) => [a.attempt_no, a.outcome, a.status_code])).toEqual([
      [1, 'retry', 500],
      [2, 'retry', 500],
      [3, 'retry', 500],
      [4, 'delivered', 200],
    ]);
    expect(log[0]!.response_excerpt).toBe('database down');
    expect(
      log.every((a) => a.latency_ms !== null && a.latency_ms >= 0 && a.finished_at !== null),
    ).toBe(true);
    // Each attempt is signed at its own time.
    expect(new Set(r.requests.map((q) => q.headers['webhook-timestamp'])).size).toBe(4);
  });

  it('stops at once on 410 Gone', async () => {
    const r = await receiver(() => 410);
    const id = await enqueue(r.url);
    await deliverDueNotifications(t.ctx);
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410 });
    t.clock.advanceMs(25 * 3600_000);
    expect(await deliverDueNotifications(t.ctx)).toBe(0);
    expect(r.requests).toHaveLength(1);
  });

  it('marks the delivery failed after the last scheduled retry', async () => {
    const r = await receiver(() => 503);
    const id = await enqueue(r.url);
    for (let i = 0; i < attemptsMax + 2; i++) {
      await deliverDueNotifications(t.ctx);
      t.clock.advanceMs(27 * 3600_000);
    }
    expect(r.requests).toHaveLength(attemptsMax);
    expect(attemptsMax).toBe(10);
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: 10, last_status_code: 503 });
    expect((await attempts(id)).at(-1)).toMatchObject({ attempt_no: 10, outcome: 'failed' });
  });

  it('redelivers the rows of a worker that died mid-delivery once its lease runs out', async () => {
    const r = await receiver();
    const id = await enqueue(r.url);
    // A worker claims the row and dies before sending or recording anything.
    const claimed = await claimDueNotifications(t.ctx, { limit: 10, leaseMs: 90_000 });
    expect(claimed.map((c) => c.id)).toEqual([id]);
    expect(await row(id)).toMatchObject({ status: 'delivering', attempts: 1 });
    t.clock.advanceMs(60_000);
    expect(await deliverDueNotifications(t.ctx)).toBe(0);
    t.clock.advanceMs(31_000);
    expect(await deliverDueNotifications(t.ctx)).toBe(1);
    expect(r.requests.map((q) => q.headers['webhook-id'])).toEqual([id]);
    expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 2 });
    const log = await attempts(id);
    expect(log.map((a) => [a.attempt_no, a.outcome, a.error])).toEqual([
      [1, 'lost', lostAttemptError],
      [2, 'delivered', null],
    ]);
  });

  it('records an answer exactly, whatever characters its excerpt and error hold', async () => {
    const r = await receiver();
    const id = await enqueue(r.url);
    const [claimed] = await claimDueNotifications(t.ctx, { limit: 10, leaseMs: 90_000 });
    // Answers travel to the database as arrays: quotes, braces, commas, backslashes and the word NULL stay text.
    const excerpt = 'a "quoted", {braced} \\back\\slash\nNULL ñ ✓';
    // 410 ends the row, so no retry of it is left due for the tests after this one.
    await recordAttempt(t.ctx, claimed!, {
      statusCode: 410,
      error: 'NULL',
      responseExcerpt: excerpt,
      latencyMs: 3,
    });
    expect(await attempts(id)).toMatchObject([
      { outcome: 'failed', status_code: 410, error: 'NULL', response_excerpt: excerpt },
    ]);
    expect(await row(id)).toMatchObject({
      status: 'failed',
      last_error: 'NULL',
      last_status_code: 410,
    });
  });

  it('a late answer from an expired lease does not overwrite the new owner', async () => {
    const r = await receiver(() => 500);
    const id = await enqueue(r.url);
    const [stale] = await claimDueNotifications(t.ctx, { limit: 10, leaseMs: 90_000 });
    t.clock.advanceMs(91_000);
    const [fresh] = await claimDueNotifications(t.ctx, { limit: 10, leaseMs: 90_000 });
    expect(fresh!.leaseToken).not.toBe(stale!.leaseToken);
    expect(fresh!.attemptNo).toBe(2);
    // The two claims can never hold the row together: the first one's token no longer matches.
    expect((await row(id)).lease_token).toBe(fresh!.leaseToken);
    // The first worker's answer finally arrives: its attempt is logged, the row stays with the new claim.
    await recordAttempt(t.ctx, stale!, {
      statusCode: 200,
      error: null,
      responseExcerpt: 'ok',
      latencyMs: 95_000,
    });
    expect(await row(id)).toMatchObject({
      status: 'delivering',
      lease_token: fresh!.leaseToken,
      delivered_at: null,
    });
    expect((await attempts(id)).map((a) => [a.attempt_no, a.outcome])).toEqual([
      [1, 'delivered'],
      [2, null],
    ]);
    t.clock.advanceMs(91_000);
    expect(await deliverDueNotifications(t.ctx)).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 3 });
  });

  it('gives up on a worker that keeps dying on a row after the whole schedule', async () => {
    const r = await receiver();
    const id = await enqueue(r.url);
    for (let i = 0; i < attemptsMax; i++) {
      expect(await claimDueNotifications(t.ctx, { limit: 10, leaseMs: 90_000 })).toHaveLength(1);
      t.clock.advanceMs(91_000);
    }
    expect(await claimDueNotifications(t.ctx, { limit: 10, leaseMs: 90_000 })).toHaveLength(0);
    expect(await row(id)).toMatchObject({
      status: 'failed',
      attempts: attemptsMax,
      last_error: lostAttemptError,
    });
    expect(r.requests).toHaveLength(0);
  });

  it("signs each attempt with the account's current secret, so a rotation applies to retries", async () => {
    const r = await receiver((_req, i) => (i === 0 ? 500 : 200));
    const id = await enqueue(r.url);
    await deliverDueNotifications(t.ctx);
    // With no grace (decision 1000), the retry carries the new signature alone.
    const rotated = await rotateAccount(t.ctx, account.id, 'webhook-secret', {
      webhookGraceHours: 0,
    });
    if (!rotated.ok) throw new Error(rotated.error);
    t.clock.advanceMs(6000);
    await deliverDueNotifications(t.ctx);
    const [first, second] = r.requests.map((q) => q.headers as Record<string, string>);
    expect(first!['webhook-signature']).toBe(
      webhookSignature(
        account.webhookSecret,
        id,
        Number(first!['webhook-timestamp']),
        r.requests[0]!.body,
      ),
    );
    expect(second!['webhook-signature']).toBe(
      webhookSignature(
        rotated.value.webhookSecret,
        id,
        Number(second!['webhook-timestamp']),
        r.requests[1]!.body,
      ),
    );
    expect(rotated.value.webhookSecret).not.toBe(account.webhookSecret);
    account = { ...account, webhookSecret: rotated.value.webhookSecret };
  });

  it('logs a fault of its own as a failed attempt and retries', async () => {
    const broken = await t.createAccount('Broken secret');
    await t.ctx.db
      .updateTable('accounts')
      .set({ webhook_secret_enc: t.ctx.secrets.seal('whsec_AA==') })
      .where('id', '=', broken.id)
      .execute();
    const r = await receiver();
    const id = await enqueue(r.url, { order: '1' }, broken.id);
    expect(await deliverDueNotifications(t.ctx)).toBe(1);
    expect(await row(id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_error: 'internal: webhook secret is too short',
    });
    expect((await attempts(id))[0]).toMatchObject({
      outcome: 'retry',
      error: 'internal: webhook secret is too short',
    });
    expect(r.requests).toHaveLength(0);
  });

  it('limits one call to the batch it is given', async () => {
    const r = await receiver();
    const ids = await Promise.all([1, 2, 3].map((n) => enqueue(r.url, { n })));
    expect(await deliverDueNotifications(t.ctx, { limit: 2 })).toBe(2);
    expect(await deliverDueNotifications(t.ctx, { limit: 2 })).toBe(1);
    expect([...r.countsById().keys()].sort()).toEqual([...ids].sort());
  });
});

describe('signatures', () => {
  it('verify with the Standard Webhooks library and the account secret', async () => {
    // The verifier checks the timestamp against the real clock, so this app's clock starts at real time.
    const live = await startTestApp({ clockStart: new Date().toISOString() });
    try {
      const merchant = await live.createAccount();
      const r = await receiver();
      const id = await live.ctx.db.transaction().execute((tx) =>
        enqueueCallback(tx, {
          accountId: merchant.id,
          url: r.url,
          eventType: 'payout.result',
          payload: { id: 'mor33e36b01e8a11b9ee', status: 'success', monto: 7000 },
          at: live.clock.now(),
        }),
      );
      await deliverDueNotifications(live.ctx);
      const received = r.requests[0]!;
      const headers = received.headers as Record<string, string>;
      const verified = new Webhook(merchant.webhookSecret).verify(received.body, headers);
      expect(verified).toEqual({ id: 'mor33e36b01e8a11b9ee', status: 'success', monto: 7000 });
      expect(headers['webhook-id']).toBe(id);
      // A body changed in transit, or another account's secret, does not verify.
      expect(() =>
        new Webhook(merchant.webhookSecret).verify(received.body.replace('7000', '7001'), headers),
      ).toThrow();
      const other = await live.createAccount('Other');
      expect(() => new Webhook(other.webhookSecret).verify(received.body, headers)).toThrow();
    } finally {
      await live.close();
    }
  });
});

describe('callback delivery in groups', () => {
  it('records a batch mixing every outcome, each row its own, in groups of deliveryRecordBatchMax', async () => {
    const ok = await receiver(() => 204);
    const busy = await receiver(() => 503);
    const gone = await receiver(() => 410);
    const urls = [ok, busy, gone];
    const count = limits.deliveryRecordBatchMax + 5;
    const ids: string[] = [];
    for (let i = 0; i < count; i++)
      ids.push(await enqueue(`${urls[i % 3]!.url}/n${i}`, { order: String(i), status: 'success' }));
    // More than one group, and more than one claim: the worker's run records across claims.
    expect(
      await deliverWhileDue(t.ctx, new AbortController().signal, { accountId: account.id }),
    ).toEqual({ attempts: count, more: false });
    const expected = [
      { status: 'delivered', last_status_code: 204, outcome: 'delivered' },
      { status: 'pending', last_status_code: 503, outcome: 'retry' },
      { status: 'failed', last_status_code: 410, outcome: 'failed' },
    ] as const;
    for (const [i, id] of ids.entries()) {
      const want = expected[i % 3]!;
      const stored = await row(id);
      expect(stored, `n${i}`).toMatchObject({
        status: want.status,
        attempts: 1,
        last_status_code: want.last_status_code,
        lease_token: null,
        lease_until: null,
      });
      expect(stored.delivered_at === null, `n${i}`).toBe(want.status !== 'delivered');
      if (want.status === 'pending')
        expect(stored.next_attempt_at.getTime()).toBeGreaterThan(t.clock.now().getTime());
      const [attempt] = await attempts(id);
      expect(attempt, `n${i}`).toMatchObject({
        outcome: want.outcome,
        status_code: want.last_status_code,
      });
      expect(attempt!.finished_at).toEqual(t.clock.now());
    }
  });

  it('reuses connections to a receiver instead of opening one per callback', async () => {
    let connections = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    server.on('connection', () => {
      connections++;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`;
    const count = 3 * limits.deliveryConcurrencyMax;
    for (let i = 0; i < count; i++) await enqueue(url, { order: `k${i}`, status: 'success' });
    expect(await deliverDueNotifications(t.ctx, { accountId: account.id })).toBe(count);
    expect(connections).toBeGreaterThan(0);
    expect(connections).toBeLessThanOrEqual(limits.deliveryConcurrencyMax);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});

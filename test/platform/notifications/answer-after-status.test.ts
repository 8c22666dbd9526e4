// A receiver that answers 2xx in time has acknowledged the callback, even when the rest of its answer (the body) is
// slower than the time limit: the callback is delivered, not sent again (decision 970).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { sendWebhook } from '../../../src/platform/notifications/send.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

/** Whose callbacks these are: a trusted origin's accounts are checked against it (decision 987). */
const anAccount = 'acc0123456789abcdef0';

let t: TestApp;
let account: TestAccount;
const servers: http.Server[] = [];

beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(() => t.close());
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

/** A receiver on 127.0.0.1 that sends its status line and a first chunk at once, then never ends the body. */
async function statusThenHang(
  status: number,
): Promise<{ url: string; ids: string[]; written: string[] }> {
  const ids: string[] = [];
  const written: string[] = [];
  const server = http.createServer((req, res) => {
    ids.push(String(req.headers['webhook-id']));
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.write('received', () => written.push(String(req.headers['webhook-id'])));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`,
    ids,
    written,
  };
}

const policy = { mode: 'sandbox', callbackTrustedOrigins: new Map() } as const;

describe('an answer whose status came in time and whose body did not', () => {
  it('is the answer its status says, with the excerpt read so far', async () => {
    const ok = await statusThenHang(200);
    expect(
      await sendWebhook({
        url: ok.url,
        headers: {},
        body: '{}',
        policy,
        accountId: anAccount,
        timeoutMs: 300,
      }),
    ).toMatchObject({ statusCode: 200, error: null, responseExcerpt: 'received', timedOut: true });
    const failing = await statusThenHang(500);
    expect(
      await sendWebhook({
        url: failing.url,
        headers: {},
        body: '{}',
        policy,
        accountId: anAccount,
        timeoutMs: 300,
      }),
    ).toMatchObject({ statusCode: 500, error: 'HTTP 500', responseExcerpt: 'received' });
  });

  it('a stopping worker records the status that came, not "no answer"', async () => {
    const ok = await statusThenHang(200);
    const stopping = new AbortController();
    const sent = sendWebhook({
      url: ok.url,
      headers: {},
      body: '{}',
      policy,
      accountId: anAccount,
      timeoutMs: 5000,
      cutOff: stopping.signal,
    });
    // The status line and a first chunk written, then a moment for them to cross the loopback.
    while (ok.written.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    stopping.abort();
    expect(await sent).toMatchObject({ statusCode: 200, error: null, responseExcerpt: 'received' });
  });

  it('delivers the callback once: no retry sends it again', async () => {
    const r = await statusThenHang(200);
    const id = await t.ctx.db.transaction().execute((tx) =>
      enqueueCallback(tx, {
        accountId: account.id,
        url: r.url,
        eventType: 'transaction.result',
        payload: { order: '199', status: 'success' },
        at: t.clock.now(),
      }),
    );
    await deliverDueNotifications(t.ctx, { timeoutMs: 300 });
    const row = await t.ctx.db
      .selectFrom('notifications')
      .select(['status', 'last_status_code'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'delivered', last_status_code: 200 });
    t.clock.advanceMs(60 * 60 * 1000);
    await deliverDueNotifications(t.ctx, { timeoutMs: 300 });
    expect(r.ids).toEqual([id]);
  });
});

// Decision 800, finding 2: a merchant with a backlog of callbacks to a receiver that never answers must not hold
// every other merchant's callbacks back for a send timeout per 32 of its own. The worker claims its next batch only
// once the queue is empty, and the lanes sent every queued callback of the hanging origin, each waiting out its
// timeout: three batches of them ahead of another merchant's one callback delayed it by 12 timeouts. Before the fix
// this failed: the healthy receiver was reached about 12 × timeoutMs after the run's first send.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../../src/runtime.ts';
import { systemClock } from '../../../src/platform/time/clock.ts';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverWhileDue } from '../../../src/platform/notifications/deliver.ts';
import { limits } from '../../../src/limits/index.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

const timeoutMs = 2_000;
const leaseMs = 15_000;
const backlog = 3 * limits.deliveryBatchMax;

let t: TestApp;
let slow: TestAccount;
let other: TestAccount;
const servers: http.Server[] = [];
const hanging: http.ServerResponse[] = [];
let firstAt: number | null = null;
let fastAt: number | null = null;

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let hangBase: string;
let fastBase: string;

beforeAll(async () => {
  t = await startTestApp();
  slow = await t.createAccount('Slow merchant');
  other = await t.createAccount('Other merchant');
  hangBase = await listen((req, res) => {
    req.resume();
    firstAt ??= Date.now();
    hanging.push(res);
  });
  fastBase = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      fastAt ??= Date.now();
      res.end('ok');
    });
  });
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  await t.close();
});

describe('a merchant with a backlog to a receiver that hangs', () => {
  it("delays another merchant's callback by about one send timeout, not one per lane-full", async () => {
    for (let i = 0; i < backlog; i++) {
      t.clock.advanceMs(1);
      await t.ctx.db.transaction().execute((tx) =>
        enqueueCallback(tx, {
          accountId: slow.id,
          url: `${hangBase}/hang`,
          eventType: 'transaction.result',
          payload: { order: `s${i}` },
          at: t.clock.now(),
        }),
      );
    }
    t.clock.advanceMs(1);
    const otherId = await t.ctx.db.transaction().execute((tx) =>
      enqueueCallback(tx, {
        accountId: other.id,
        url: `${fastBase}/fast`,
        eventType: 'transaction.result',
        payload: { order: 'o1' },
        at: t.clock.now(),
      }),
    );
    // The worker's step on the real clock (later than the test clock's, so everything is due).
    const ctx = createContext({ ...t.ctx, clock: systemClock });
    await deliverWhileDue(ctx, new AbortController().signal, { timeoutMs, leaseMs });
    expect(fastAt).not.toBeNull();
    expect(fastAt! - firstAt!).toBeLessThan(2 * timeoutMs);
    const row = await t.ctx.db
      .selectFrom('notifications')
      .select('status')
      .where('id', '=', otherId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('delivered');
    // Every callback of the hanging merchant had its attempt and waits for its retry: none left `delivering`.
    const left = await t.ctx.db
      .selectFrom('notifications')
      .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
      .where('account_id', '=', slow.id)
      .groupBy('status')
      .execute();
    expect(left.map((r) => [r.status, Number(r.n)])).toEqual([['pending', backlog]]);
  }, 120_000);
});

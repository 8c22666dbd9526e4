// Decision 800, finding 1: one merchant's hanging receiver must not hold every delivery lane while another
// merchant's callback waits in the same batch. Decision 010 promised "one slow merchant cannot block others beyond
// 8 slots per process", but the lanes took the queue strictly in order: 64 callbacks of a merchant whose receiver
// never answers, claimed before a second merchant's one callback, took all 32 lanes for a send timeout, then all
// 32 again, and the second merchant's callback went out only after two timeouts. Before the fix this failed: the
// healthy receiver was reached 2 × timeoutMs after the first send.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../../src/runtime.ts';
import { systemClock } from '../../../src/platform/time/clock.ts';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { limits } from '../../../src/limits/index.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

const timeoutMs = 2_000;
const leaseMs = 15_000;

let t: TestApp;
let slow: TestAccount;
let other: TestAccount;
let server: http.Server;
let base: string;
let hangingSeen = 0;
let firstAt: number | null = null;
let fastAt: number | null = null;
const hanging: http.ServerResponse[] = [];

beforeAll(async () => {
  t = await startTestApp();
  slow = await t.createAccount('Slow merchant');
  other = await t.createAccount('Other merchant');
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      firstAt ??= Date.now();
      if (req.url === '/hang') {
        hangingSeen++;
        hanging.push(res);
      } else {
        fastAt ??= Date.now();
        res.end('ok');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await t.close();
});

function enqueue(accountId: string, path: string, order: string): Promise<string> {
  t.clock.advanceMs(1);
  return t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId,
      url: `${base}${path}`,
      eventType: 'transaction.result',
      payload: { order },
      at: t.clock.now(),
    }),
  );
}

describe('a merchant whose receiver hangs', () => {
  it("does not hold every lane while another merchant's callback waits", async () => {
    expect(limits.deliveryConcurrencyMax).toBe(32);
    for (let i = 0; i < 2 * limits.deliveryConcurrencyMax; i++)
      await enqueue(slow.id, '/hang', `s${i}`);
    await enqueue(other.id, '/fast', 'o1');
    // One batch, claimed on the real clock (later than the test clock's, so all is due; the timeout is real time).
    const ctx = createContext({ ...t.ctx, clock: systemClock });
    expect(await deliverDueNotifications(ctx, { timeoutMs, leaseMs })).toBe(
      2 * limits.deliveryConcurrencyMax + 1,
    );
    expect(fastAt).not.toBeNull();
    // Sent in the first wave of lanes, not after the hanging merchant's sends timed out (counted from the first
    // request the run sent, so the claim's own time on a busy machine does not count).
    expect(fastAt! - firstAt!).toBeLessThan(timeoutMs);
    // The slow merchant's first wave was sent; once one timed out, the rest of its callbacks were recorded unsent
    // (finding 2). Every one waits for its retry: none is left `delivering` for its lease to find.
    expect(hangingSeen).toBeLessThanOrEqual(
      limits.deliveryConcurrencyMax + limits.deliveryStallTimeoutsMin - 1,
    );
    const left = await t.ctx.db
      .selectFrom('notifications')
      .select('status')
      .where('account_id', '=', slow.id)
      .execute();
    expect(left.filter((r) => r.status !== 'pending')).toEqual([]);
  }, 30_000);
});

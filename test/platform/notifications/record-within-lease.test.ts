// Decision 705, finding 2: a worker that never crashes must not have its answered callbacks taken over and sent
// again. deliverWhileDue checked that every batch is *answered* inside its lease (deliver.ts timingOf), but answers
// were *recorded* only once limits.deliveryRecordBatchMax of them had piled up (attempt-record.ts): an answer landing
// just after a group boundary waited for the next 127 answers, which slow receivers may take most of a lease to give.
// Its row's lease ran out while the answer sat in memory, and the same worker's next claim took the row back, marked
// the attempt `lost` and sent the callback again, though nothing crashed. Before the fix this failed: the callback
// that never answered (#127 /hang) was sent twice and its first attempt logged `lost`. Now an answer waits at most
// recordDelayMs for others to share its statement, and the lease check counts that wait.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../../src/runtime.ts';
import { systemClock } from '../../../src/platform/time/clock.ts';
import type { AppContext } from '../../../src/platform/context.ts';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverWhileDue } from '../../../src/platform/notifications/deliver.ts';
import { limits } from '../../../src/limits/index.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

const timeoutMs = 400;
const slowMs = 360;
const leaseMs = 2_050;
/** Scaled down with the lease and the timeout: (4 + 1) × timeoutMs + recordDelayMs must stay under leaseMs. */
const recordDelayMs = 40;

let t: TestApp;
let account: TestAccount;
let server: http.Server;
let base: string;
/** X's own origin: a receiver that lets a callback time out gets nothing more that run (decision 800). */
let hangServer: http.Server;
let hangBase: string;
const received = new Map<string, number>();
const hanging: http.ServerResponse[] = [];

beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
      if (req.url === '/slow') setTimeout(() => res.end('ok'), slowMs);
      else res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  hangServer = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
      hanging.push(res);
    });
  });
  await new Promise<void>((r) => hangServer.listen(0, '127.0.0.1', () => r()));
  hangBase = `http://127.0.0.1:${(hangServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  for (const s of [server, hangServer]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await t.close();
});

describe('answers recorded in groups', () => {
  it('are recorded before their lease runs out, so a worker that never crashed sends none twice', async () => {
    expect(limits.deliveryBatchMax).toBe(128);
    expect(limits.deliveryRecordBatchMax).toBe(128);
    // Two batches, in queue order: 127 slow receivers and one that never answers (X), then one fast receiver and
    // 127 slow ones. X times out after the fast one has answered, so X opens the second group of answers.
    const paths = [
      ...Array<string>(127).fill('/slow'),
      '/hang',
      '/fast',
      ...Array<string>(127).fill('/slow'),
    ];
    const ids: string[] = [];
    for (const [n, path] of paths.entries()) {
      t.clock.advanceMs(1);
      ids.push(
        await t.ctx.db.transaction().execute((tx) =>
          enqueueCallback(tx, {
            accountId: account.id,
            url: `${path === '/hang' ? hangBase : base}${path}`,
            eventType: 'transaction.result',
            payload: { order: String(n) },
            at: t.clock.now(),
          }),
        ),
      );
    }
    // One worker on the real clock, never stopped or killed.
    const a: AppContext = createContext({ ...t.ctx, clock: systemClock });
    const run = deliverWhileDue(a, new AbortController().signal, {
      timeoutMs,
      leaseMs,
      recordDelayMs,
      // Slow answers (slowMs) that a loaded machine lets time out are not what this test is about: its origin is not
      // skipped for them (decision 800's rule has its own tests).
      stallTimeoutsMin: Number.MAX_SAFE_INTEGER,
    });
    await run;
    // Nothing crashed and X's retry (5 s on) is not due yet: every callback was sent exactly once.
    const twice = ids.flatMap((id, n) =>
      (received.get(id) ?? 0) !== 1 ? [`#${n} ${paths[n]}`] : [],
    );
    expect(twice).toEqual([]);
    const lost = await t.ctx.db
      .selectFrom('notification_attempts')
      .select(['notification_id', 'attempt_no'])
      .where('outcome', '=', 'lost')
      .execute();
    expect(lost).toEqual([]);
  });
});

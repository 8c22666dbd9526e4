// Decision 705, finding 3: a graceful stop of `cobro serve` (SIGTERM) must record the callback answers it already
// has. A stopping worker kept delivering the batch it held (decision 180: "shutdown waits for it"), but the process
// exits after limits.shutdownGraceMs (20 s, src/server.ts closeOnSignals) while a batch of 128 over 32 lanes may need
// 4 x deliveryTimeoutMs (60 s); and answers were recorded only 128 at a time or when the run ended, so every answer
// received before the forced exit was lost with it. Before the fix this failed: acknowledged callbacks stayed
// `delivering` (to be sent again after the lease) and the process exited 1 when its grace ran out. Now answers are
// recorded as they come, and sends still unanswered limits.deliveryStopSendsMs after the stop are cut off and
// recorded as failed attempts to retry.
import { describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { enqueueCallback } from '../../src/platform/notifications/enqueue.ts';
import { startServe } from '../support/cli.ts';
import { serveOn, suiteEngine } from './engines.ts';
import { demoCredentials } from './load.ts';

const callbacks = 160;
const answerAfterMs = 8_000;

describe('cobro serve stopped by SIGTERM while receivers answer slowly', () => {
  it('records every answer it received before it exits', { timeout: 120_000 }, async () => {
    const engine = await suiteEngine();
    const answeredAt = new Map<string, number>();
    const pending = new Set<http.ServerResponse>();
    const receiver = http.createServer((req, res) => {
      req.resume();
      const id = String(req.headers['webhook-id']);
      pending.add(res);
      setTimeout(() => {
        res.end('ok', () => answeredAt.set(id, Date.now()));
        pending.delete(res);
      }, answerAfterMs);
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
    try {
      const { env } = await serveOn(engine);
      const first = await startServe(env);
      const { accountId } = demoCredentials(first.output());
      await first.stop();
      const data = await engine.open();
      try {
        for (let i = 0; i < callbacks; i++)
          await data.db.transaction().execute((tx) =>
            enqueueCallback(tx, {
              accountId,
              url,
              eventType: 'transaction.result',
              payload: { order: String(i) },
              at: new Date(),
            }),
          );
      } finally {
        await data.close();
      }
      const second = await startServe({ ...env, COBRO_WORKERS: '1' });
      while (pending.size === 0) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 1_000));
      const exited = new Promise<{ at: number; code: number | null }>((resolve) =>
        second.child.once('close', (code) => resolve({ at: Date.now(), code })),
      );
      second.child.kill('SIGTERM');
      const { at: exit, code } = await exited;
      // It stopped within its grace (process.exit(1) when the grace runs out).
      expect(code).toBe(0);
      // Answers given well before the process went away (a second or more).
      const acknowledged = [...answeredAt].filter(([, at]) => at < exit - 1_000).map(([id]) => id);
      expect(acknowledged.length).toBeGreaterThan(0);
      const after = await engine.open();
      try {
        const rows = await after.db
          .selectFrom('notifications')
          .select(['id', 'status'])
          .where('id', 'in', acknowledged)
          .execute();
        expect(rows.filter((r) => r.status !== 'delivered')).toEqual([]);
        // The sends it cut short, and the rows it held unsent, were recorded as failed attempts to retry: none is
        // left `delivering`, to wait out its lease.
        const held = await after.db
          .selectFrom('notifications')
          .select(['id', 'status'])
          .where('status', '=', 'delivering')
          .execute();
        expect(held).toEqual([]);
      } finally {
        await after.close();
      }
    } finally {
      for (const res of pending) res.destroy();
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
      await engine.dispose();
    }
  });
});

// Review: a graceful stop of `cobro serve` (SIGTERM) must record the callback answers it already has. A stopping
// worker keeps delivering the batch it holds (decision 180: "shutdown waits for it"), but the process exits after
// limits.shutdownGraceMs (20 s, src/server.ts closeOnSignals) while a batch of 128 over 32 lanes may need
// 4 x deliveryTimeoutMs (60 s); and answers are recorded only 128 at a time or when the run ends
// (attempt-record.ts), so every answer received before the forced exit is lost with it: the callbacks stay
// `delivering` and are sent again after the lease, though the receiver acknowledged them and nothing crashed.
import { describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { enqueueCallback } from '../../src/platform/notifications/enqueue.ts';
import { startServe } from '../support/cli.ts';
import { serveOn, suiteEngine } from '../reliability/engines.ts';
import { demoCredentials } from '../reliability/load.ts';

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
      const exitedAt = new Promise<number>((resolve) =>
        second.child.once('close', () => resolve(Date.now())),
      );
      second.child.kill('SIGTERM');
      const exit = await exitedAt;
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

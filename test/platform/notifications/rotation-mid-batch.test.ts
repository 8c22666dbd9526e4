// A webhook secret rotated with no grace (`--webhook-grace-hours 0`) while a worker delivers a batch: what the worker
// had claimed before the rotation keeps the old signature, and a receiver that already checks with the new secret
// refuses those and gets their retries signed with it (docs/callbacks.md, decisions 970 and 1000). Nothing is lost.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { rotateAccount } from '../../../src/modules/accounts/service.ts';
import { limits } from '../../../src/limits/index.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

let t: TestApp;
let account: TestAccount;
let server: http.Server;
beforeAll(async () => {
  t = await startTestApp({ clockStart: new Date().toISOString() });
  account = await t.createAccount();
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await t.close();
});

describe('a webhook secret rotated during a batch', () => {
  it('old-signed sends of the batch are refused by the new secret and their retries carry it', async () => {
    const count = limits.deliveryConcurrencyMax + 8;
    let rotation: Promise<string> | null = null;
    let newSecret: string | null = null;
    const verdicts: { id: string; afterRotation: boolean; verified: 'new' | 'old' }[] = [];
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = req.headers as Record<string, string>;
        const afterRotation = newSecret !== null;
        // The first request rotates the secret; every request of the first wave waits for it to commit.
        // With no grace (decision 1000): the retries carry the new signature alone.
        rotation ??= rotateAccount(t.ctx, account.id, 'webhook-secret', {
          webhookGraceHours: 0,
        }).then((r) => {
          if (!r.ok) throw new Error(r.error);
          return r.value.webhookSecret;
        });
        newSecret = await rotation;
        let verified: 'new' | 'old' = 'old';
        try {
          new Webhook(newSecret).verify(body, headers);
          verified = 'new';
        } catch {
          new Webhook(account.webhookSecret).verify(body, headers); // throws if neither: a forgery
        }
        verdicts.push({ id: headers['webhook-id']!, afterRotation, verified });
        res.writeHead(verified === 'new' ? 200 : 401).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`;
    await t.ctx.db.transaction().execute(async (tx) => {
      for (let i = 0; i < count; i++)
        await enqueueCallback(tx, {
          accountId: account.id,
          url,
          eventType: 'transaction.result',
          payload: { order: String(i), status: 'success' },
          at: t.clock.now(),
        });
    });
    await deliverDueNotifications(t.ctx);
    expect(verdicts).toHaveLength(count);
    // Sent after the rotation committed (at least the last lane-full), but claimed before it: the old signature, as
    // the docs now say.
    expect(verdicts.filter((v) => v.afterRotation).length).toBeGreaterThanOrEqual(8);
    expect(verdicts.every((v) => v.verified === 'old')).toBe(true);
    t.clock.advanceMs(10_000);
    await deliverDueNotifications(t.ctx);
    const retries = verdicts.slice(count);
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.every((v) => v.verified === 'new')).toBe(true);
    const states = await t.ctx.db
      .selectFrom('notifications')
      .select((eb) => ['status', eb.fn.countAll<string>().as('n')])
      .where('account_id', '=', account.id)
      .groupBy('status')
      .execute();
    expect(states.map((s) => [s.status, Number(s.n)])).toEqual([['delivered', count]]);
  });
});

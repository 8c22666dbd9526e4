// The hand-written verifier in docs/callbacks.md must accept what Cobro sends and refuse anything changed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';

type Verify = (
  secret: string,
  headers: Record<string, string>,
  rawBody: string,
  toleranceSec?: number,
) => boolean;

let t: TestApp;
let receiver: Receiver;
let verify: Verify;
let dir: string;

beforeAll(async () => {
  const doc = fs.readFileSync(
    path.resolve(import.meta.dirname, '../../../docs/callbacks.md'),
    'utf8',
  );
  const match =
    /<!-- checked by test\/platform\/notifications\/docs-snippet\.test\.ts -->\n```js\n([\s\S]*?)```/.exec(
      doc,
    );
  if (match === null) throw new Error('verifier snippet not found in docs/callbacks.md');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-snippet-'));
  const file = path.join(dir, 'verify.mjs');
  fs.writeFileSync(file, match[1]!);
  verify = ((await import(pathToFileURL(file).href)) as { verifyCobroWebhook: Verify })
    .verifyCobroWebhook;
  t = await startTestApp({ clockStart: new Date().toISOString() });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A new account's `transaction.result` callback of `payload`, delivered to the receiver: its headers and body. */
async function delivered(payload: Record<string, unknown>) {
  const account = await t.createAccount();
  await t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId: account.id,
      url: receiver.url,
      eventType: 'transaction.result',
      payload,
      at: t.clock.now(),
    }),
  );
  await deliverDueNotifications(t.ctx);
  const { headers, body } = receiver.requests.at(-1)!;
  return { account, h: headers as Record<string, string>, body };
}

describe('docs/callbacks.md verifier', () => {
  it('accepts a delivered callback and refuses a changed body, id or secret', async () => {
    const { account, h, body } = await delivered({ order: '199', status: 'success' });
    expect(verify(account.webhookSecret, h, body)).toBe(true);
    expect(verify(account.webhookSecret, h, body.replace('199', '198'))).toBe(false);
    expect(verify(account.webhookSecret, { ...h, 'webhook-id': 'msg_other' }, body)).toBe(false);
    expect(verify((await t.createAccount('Other')).webhookSecret, h, body)).toBe(false);
    expect(
      verify(
        account.webhookSecret,
        { ...h, 'webhook-timestamp': String(Number(h['webhook-timestamp']) - 3600) },
        body,
      ),
    ).toBe(false);
  });

  it('refuses a timestamp that is not a number of seconds, so no signed text can be cut in other places', async () => {
    const { account, h, body } = await delivered({ order: '200', amount: '1.5' });
    expect(verify(account.webhookSecret, h, body)).toBe(true);
    // The signed text `id.timestamp.body` read at other dots: the same bytes, so the same signature, but another id
    // (past the receiver's deduplication), a "timestamp" that is no time at all, and what followed the body's dot.
    const cut = body.indexOf('.');
    const replayed = {
      ...h,
      'webhook-id': `${h['webhook-id']}.${h['webhook-timestamp']}`,
      'webhook-timestamp': body.slice(0, cut),
    };
    expect(verify(account.webhookSecret, replayed, body.slice(cut + 1))).toBe(false);
    expect(verify(account.webhookSecret, { ...h, 'webhook-timestamp': '' }, body)).toBe(false);
  });
});

// Decision 983: answers of a trusted origin kept before decision 987 (every attempt then kept its first KiB, whichever
// account sent it) are not shown to an account the origin does not name, nor through an origin trusted for every
// account: a deployment upgraded with the origin named alone, or scoped to its owner, keeps those attempts for up to
// 30 days (decision 994), and GET /api/notifications/{id} (the dashboard's page and `cobro notifications show` read
// the same) handed them to the account that aimed its callback at the operator's service.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';

const secret = 'db_password=hunter2-internal-only';
const env = { COBRO_MODE: 'production', COBRO_SECRET_KEY: crypto.randomBytes(32).toString('hex') };
let internal: Receiver;
let open: TestApp;
let scoped: TestApp;
let owner: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  internal = await startReceiver(() => ({ status: 200, body: secret }));
  open = await startTestApp({ env: { ...env, CALLBACK_TRUSTED_ORIGINS: internal.url } });
  owner = await open.createAccount('Owner of the internal receiver');
  other = await open.createAccount('Another merchant');
  scoped = await startTestApp({
    sharing: open,
    env: { ...env, CALLBACK_TRUSTED_ORIGINS: `${internal.url}@${owner.id}` },
  });
});
afterAll(async () => {
  await scoped?.close();
  await open?.close();
  await internal.close();
});

/** A callback of `account` to the internal origin, delivered, its answer kept as a version before 987 kept it. */
async function keptBefore987(account: TestAccount): Promise<string> {
  const id = await open.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId: account.id,
      url: `${internal.url}/admin/config`,
      eventType: 'transaction.result',
      payload: { id: 'sale' },
      at: open.clock.now(),
    }),
  );
  await deliverDueNotifications(open.ctx, { accountId: account.id });
  await open.ctx.db
    .updateTable('notification_attempts')
    .set({ response_excerpt: secret })
    .where('notification_id', '=', id)
    .execute();
  return id;
}

async function excerptsRead(t: TestApp, account: TestAccount, id: string) {
  const res = await t.call(account, { method: 'GET', url: `/api/notifications/${id}` });
  expect(res.statusCode).toBe(200);
  return (res.json().notification.attempts_log as { response_excerpt: string | null }[]).map(
    (a) => a.response_excerpt,
  );
}

describe('answers kept before decision 987', () => {
  it('are not shown through an origin trusted for every account', async () => {
    const id = await keptBefore987(other);
    expect(await excerptsRead(open, other, id)).toEqual([null]);
  });

  it('are not shown to an account the origin does not name', async () => {
    const id = await keptBefore987(other);
    expect(await excerptsRead(scoped, other, id)).toEqual([null]);
  });

  it('are shown to the account the origin names', async () => {
    const id = await keptBefore987(owner);
    expect(await excerptsRead(scoped, owner, id)).toEqual([secret]);
  });
});

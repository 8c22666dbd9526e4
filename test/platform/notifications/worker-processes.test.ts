// Real `cobro worker` processes against one PostgreSQL: rows are shared without double delivery, and a worker
// killed mid-delivery loses nothing. PostgreSQL only: PGlite is one process's database.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { ManualClock, systemClock } from '../../../src/platform/time/clock.ts';
import type { AppContext } from '../../../src/platform/context.ts';
import { createSecretBox } from '../../../src/platform/auth/secrets.ts';
import { createContext } from '../../../src/runtime.ts';
import { createAccount } from '../../../src/modules/accounts/service.ts';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { cloneTestDatabase, type TestDatabaseHandle } from '../../support/database.ts';
import { assertDatabaseMode } from '../../../src/platform/db/database-mode.ts';
import { testConfig } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const mainScript = path.resolve(import.meta.dirname, '../../../src/cli/main.ts');
const waitStepMs = 100;
const waitStepsMax = 300;

let handle: TestDatabaseHandle;
let ctx: AppContext;
let secretKeyHex: string;
let dataDir: string;
let children: ChildProcess[] = [];
let receivers: Receiver[] = [];

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  for (let step = 0; step < waitStepsMax; step++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, waitStepMs));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, [mainScript, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: handle.url!,
      COBRO_SECRET_KEY: secretKeyHex,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      COBRO_MODE: 'sandbox',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

async function enqueue(accountId: string, url: string, n: number): Promise<string> {
  return ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId,
      url,
      eventType: 'transaction.result',
      payload: { order: String(n) },
      at: ctx.clock.now(),
    }),
  );
}

describe.skipIf(!onPostgres)('worker processes on one PostgreSQL', () => {
  beforeAll(async () => {
    handle = await cloneTestDatabase();
    const key = crypto.randomBytes(32);
    secretKeyHex = key.toString('hex');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-workers-'));
    ctx = createContext({
      db: handle.db,
      engine: handle.engine,
      pool: handle.pool,
      config: testConfig(),
      clock: systemClock,
      secrets: createSecretBox(key),
      logger: pino({ level: 'silent' }),
    });
    // The context stands for a sandbox `cobro serve`, whose start records the database's mode (decision 930).
    await assertDatabaseMode(handle.db, 'sandbox', 'the test database', true);
  });
  afterEach(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(children.map(exited));
    children = [];
    await Promise.all(receivers.map((r) => r.close()));
    receivers = [];
  });
  afterAll(async () => {
    await handle.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('two workers deliver every callback exactly once', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const accounts = [await createAccount(ctx, 'A'), await createAccount(ctx, 'B')].map((r) => {
      if (!r.ok) throw new Error(r.error);
      return r.value.id;
    });
    const ids: string[] = [];
    for (let n = 0; n < 60; n++)
      ids.push(await enqueue(accounts[n % 2]!, `${receiver.url}/n/${n}`, n));
    startWorkerProcess();
    startWorkerProcess();
    await until('every callback delivered', async () => {
      const left = await ctx.db
        .selectFrom('notifications')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('status', '!=', 'delivered')
        .executeTakeFirstOrThrow();
      return Number(left.n) === 0;
    });
    const counts = receiver.countsById();
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    const attempts = await ctx.db
      .selectFrom('notification_attempts')
      .select(['notification_id', 'outcome'])
      .execute();
    expect(attempts).toHaveLength(60);
    expect(attempts.every((a) => a.outcome === 'delivered')).toBe(true);
  });

  it('a worker killed mid-delivery leaves the row to be redelivered after its lease', async () => {
    const receiver = await startReceiver((_req, i) => (i === 0 ? 'hang' : 200));
    receivers.push(receiver);
    const created = await createAccount(ctx, 'C');
    if (!created.ok) throw new Error(created.error);
    const id = await enqueue(created.value.id, `${receiver.url}/slow`, 1);
    const worker = startWorkerProcess();
    await until('the worker to be mid-delivery', () => receiver.requests.length === 1);
    worker.kill('SIGKILL');
    await exited(worker);
    const stuck = await ctx.db
      .selectFrom('notifications')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stuck.status).toBe('delivering');
    expect(stuck.lease_until).not.toBeNull();

    // Before the lease runs out nobody may take the row; after it, any worker redelivers it.
    const clock = new ManualClock(stuck.lease_until!);
    // Contexts on other clocks come from the composition root, so the account clock reads the same clock.
    const later: AppContext = createContext({ ...ctx, clock });
    expect(
      await deliverDueNotifications(
        createContext({
          ...ctx,
          clock: new ManualClock(new Date(stuck.lease_until!.getTime() - 1000)),
        }),
      ),
    ).toBe(0);
    clock.advanceMs(1);
    expect(await deliverDueNotifications(later)).toBe(1);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    const row = await ctx.db
      .selectFrom('notifications')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'delivered', attempts: 2 });
    const log = await ctx.db
      .selectFrom('notification_attempts')
      .select(['attempt_no', 'outcome'])
      .where('notification_id', '=', id)
      .orderBy('attempt_no')
      .execute();
    expect(log).toEqual([
      { attempt_no: 1, outcome: 'lost' },
      { attempt_no: 2, outcome: 'delivered' },
    ]);
  });
});

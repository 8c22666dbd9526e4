// Decision 785: a refund's dispatch lease is on the service clock. Moving an account's sandbox clock past the lease
// while a worker waits for the processor's answer must not let another worker (another `cobro serve` or `cobro
// worker`, here a second pool on PostgreSQL) claim the refund and ask the processor again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import type { AppContext } from '../../../src/platform/context.ts';
import type { RefundOutcome, RefundRequest } from '../../../src/platform/processors/processor.ts';
import { refundLimits } from '../../../src/limits/index.ts';
import { registerNullification } from '../../../src/modules/refunds/nullify.ts';
import { dispatchNullification, runRefundDispatch } from '../../../src/modules/refunds/dispatch.ts';
import { paidSale, settle } from './helpers.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

let t: TestApp;
let second: DatabaseHandle | undefined;

beforeAll(async () => {
  t = await startTestApp();
  const url = (t.handle as { url?: string }).url;
  if (onPostgres && url !== undefined) second = await openDatabase({ engine: 'postgres', url });
});
afterAll(async () => {
  await second?.close();
  await t.close();
});

/** A worker whose processor counts its refund calls and, while `gate` is set, holds each answer until it opens. */
function worker(db: AppContext['db']) {
  const asked: string[] = [];
  let open: (() => void) | null = null;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const base = t.ctx.processor;
  const ctx: AppContext = {
    ...t.ctx,
    db,
    processor: {
      ...base,
      refund: async (r: RefundRequest): Promise<RefundOutcome> => {
        asked.push(r.idempotencyKey);
        await gate;
        return base.refund(r);
      },
    },
  };
  return { ctx, asked, release: () => open?.() };
}

describe('a sandbox clock advance during a refund dispatch', () => {
  it('does not let a second worker claim the refund while the first waits for the processor', async () => {
    const a = await t.createAccount('Reloj durante la devolución');
    const sale = await paidSale(t, a, 10_000, 'lease-1');
    await settle(t, a);
    const registered = await registerNullification(t.ctx, a.id, {
      id: sale,
      amount: 4_000,
      subject: 'devolución',
    });
    if (!registered.ok) throw new Error('refund refused');
    const first = worker(t.ctx.db);
    const secondWorker = worker(second?.db ?? t.ctx.db);
    secondWorker.release();
    // Worker 1 claims the refund and is at the processor.
    const inFlight = dispatchNullification(first.ctx, registered.nullificationId);
    while (first.asked.length === 0) await new Promise((r) => setTimeout(r, 5));
    // The merchant moves the account's clock an hour on (far past the 2-minute lease); no real time passes.
    await t.ctx.accountClock.advance(a.id, refundLimits.dispatchLeaseMs + 60 * 60 * 1000, t.ctx.db);
    // Worker 2 runs the due work: the lease is live on the service clock, so nothing is due.
    const processed = await runRefundDispatch(secondWorker.ctx, { limit: 10, accountId: a.id });
    expect(secondWorker.asked).toEqual([]);
    expect(processed).toBe(0);
    first.release();
    await inFlight;
    const row = await t.ctx.db
      .selectFrom('nullifications')
      .select(['status', 'dispatch_attempts', 'dispatch_due_at'])
      .where('id', '=', registered.nullificationId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      status: 'reverse_completed',
      dispatch_attempts: 1,
      dispatch_due_at: null,
    });
  });

  it('still asks again once the lease ran out on the service clock (a worker that died)', async () => {
    const a = await t.createAccount('Reloj, trabajador caído');
    const sale = await paidSale(t, a, 10_000, 'lease-2');
    await settle(t, a);
    const registered = await registerNullification(t.ctx, a.id, {
      id: sale,
      amount: 2_000,
      subject: 'devolución',
    });
    if (!registered.ok) throw new Error('refund refused');
    const dying = worker(t.ctx.db);
    // Worker 1 claims and never answers (its process died at the processor).
    void dispatchNullification(dying.ctx, registered.nullificationId);
    while (dying.asked.length === 0) await new Promise((r) => setTimeout(r, 5));
    const next = worker(second?.db ?? t.ctx.db);
    next.release();
    expect(await runRefundDispatch(next.ctx, { limit: 10, accountId: a.id })).toBe(0);
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1_000);
    expect(await runRefundDispatch(next.ctx, { limit: 10, accountId: a.id })).toBe(1);
    expect(next.asked).toEqual([registered.nullificationId]);
    const row = await t.ctx.db
      .selectFrom('nullifications')
      .select(['status', 'dispatch_attempts'])
      .where('id', '=', registered.nullificationId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'reverse_completed', dispatch_attempts: 2 });
    dying.release();
  });
});

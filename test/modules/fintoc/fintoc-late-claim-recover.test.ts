// Decision 1215: a late Fintoc success (decision 1055) whose process stopped between its claim of the sale and its
// record, and that Fintoc never delivers again. The `fintoc-late-claim-recover` due work finds the sale still held by
// the dead late attempt once its lease ran out, reads the payment intent from Fintoc, and finishes the sale as a
// redelivery of the event would (the same settleFintocSession path): paid once, one capture, one callback, reconcile
// matching the movement, the ledger clean, nothing logged for the operator. The redelivery and the due work at once
// pay once too. Through Fintoc's signed webhook against the simulator and `cobro fintoc reconcile`.
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { fintocWebhook, startFintocShop } from '../../support/fintoc-shop.ts';
import { lateSuccessShop } from './late-success-shop.ts';
import { capturesOf, saleStatusOf } from '../transactions/helpers.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { claimAttempt } from '../../../src/modules/transactions/attempt-claim.ts';
import { lateAttemptId } from '../../../src/modules/fintoc/late-success.ts';
import { fintocLimits, transactionLimits } from '../../../src/limits/index.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;
const { failedIntent, attemptsOf, callbacksOf, reconcileOf } = lateSuccessShop(() => ({
  t,
  sim,
  shop,
}));
const errors: { msg: string; transaction?: string }[] = [];

beforeAll(async () => {
  const logger = pino(
    { level: 'error' },
    new Writable({
      write(chunk, _encoding, done) {
        errors.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  ({ t, sim, shop } = await startFintocShop(
    'Tienda Rescate',
    'fd',
    { payouts: { fundMinor: 10_000 } },
    logger,
  ));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const webhook = (type: string, data: Record<string, unknown>) =>
  fintocWebhook(t, sim, shop, type, data);

/** What a process killed between payLate's claim and its record leaves (decision 1080): the sale held, unpaid. */
async function deadLateClaim(saleId: string) {
  const session = await t.ctx.db
    .selectFrom('processor_sessions')
    .selectAll()
    .where('transaction_id', '=', saleId)
    .executeTakeFirstOrThrow();
  const claim = await claimAttempt(t.ctx, {
    transactionId: saleId,
    accountId: shop.id,
    attemptId: lateAttemptId(session),
    leaseMs: transactionLimits.acquirer.redirectLeaseMs,
  });
  expect(claim.kind).toBe('claimed');
}

const errorsOf = (saleId: string) =>
  errors.filter((e) => e.transaction === saleId).map((e) => e.msg);

/** The sale paid exactly once by the late success, and nothing left for the operator. */
async function paidOnce(order: string, saleId: string, intent: Record<string, unknown>) {
  expect(errorsOf(saleId), order).toEqual([]);
  expect(await saleStatusOf(t, saleId), order).toBe('success');
  expect(await capturesOf(t, saleId), order).toBe(1);
  expect(await callbacksOf(order), order).toEqual(['success']);
  expect(await attemptsOf(saleId), order).toEqual(['Fintoc:declined', 'Fintoc:approved']);
  expect(await reconcileOf(intent), order).toEqual([]);
  expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
}

describe('a late Fintoc success stopped after its claim, never delivered again', () => {
  it('the due work reads the intent from Fintoc and pays the sale once when the lease ran out', async () => {
    const { sale, intent } = await failedIntent('rescue-1', 7000);
    await deadLateClaim(sale.id);
    errors.length = 0;
    // The dead attempt's lease still live: nothing is asked, the sale stays held.
    await drainDueWork(t.ctx, shop.id);
    expect(await saleStatusOf(t, sale.id)).toBe('pending');
    expect(sim.calls).not.toContain(`GET /v1/payment_intents/${String(intent.id)}`);
    t.clock.advanceMs(transactionLimits.acquirer.redirectLeaseMs + 1000);
    await drainDueWork(t.ctx, shop.id);
    expect(sim.calls).toContain(`GET /v1/payment_intents/${String(intent.id)}`);
    await paidOnce('rescue-1', sale.id, intent);
    // Fintoc delivering the event after all changes nothing and tells the operator nothing.
    await webhook('payment_intent.succeeded', { ...intent, status: 'succeeded' });
    await drainDueWork(t.ctx, shop.id);
    await paidOnce('rescue-1', sale.id, intent);
  });

  it('the redelivery and the due work at once pay the sale once', async () => {
    const sales = [];
    for (const order of ['rescue-2', 'rescue-3', 'rescue-4']) {
      const { sale, intent } = await failedIntent(order, 6000);
      await deadLateClaim(sale.id);
      sales.push({ order, sale, intent });
    }
    t.clock.advanceMs(transactionLimits.acquirer.redirectLeaseMs + 1000);
    errors.length = 0;
    await Promise.all([
      drainDueWork(t.ctx, shop.id),
      ...sales.map((s) =>
        webhook('payment_intent.succeeded', { ...s.intent, status: 'succeeded' }),
      ),
    ]);
    for (const s of sales) await paidOnce(s.order, s.sale.id, s.intent);
  });

  it('a redelivery paying the sale while the due work reads Fintoc: the due work finds it paid, quiet', async () => {
    const { sale, intent } = await failedIntent('rescue-5', 5000);
    await deadLateClaim(sale.id);
    t.clock.advanceMs(transactionLimits.acquirer.redirectLeaseMs + 1000);
    errors.length = 0;
    let open = () => {};
    sim.intentReadGates.set(String(intent.id), new Promise<void>((resolve) => (open = resolve)));
    const due = drainDueWork(t.ctx, shop.id);
    // The due work has claimed the session and waits on Fintoc's answer when its read reaches the simulator.
    for (let look = 0; look < 2_000; look++) {
      if (sim.calls.includes(`GET /v1/payment_intents/${String(intent.id)}`)) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(sim.calls).toContain(`GET /v1/payment_intents/${String(intent.id)}`);
    expect(await webhook('payment_intent.succeeded', { ...intent, status: 'succeeded' })).toBe(
      'approved',
    );
    open();
    await due;
    await paidOnce('rescue-5', sale.id, intent);
  });

  it('a failure between the record and the mark of the session leaves neither: the next beat pays and marks it', async () => {
    const { sale, intent } = await failedIntent('rescue-6', 4000);
    await deadLateClaim(sale.id);
    t.clock.advanceMs(transactionLimits.acquirer.redirectLeaseMs + 1000);
    // The database fails the session's mark (an outage, a kill) after the due work's record: decision 1235.
    await sql`CREATE FUNCTION fail_fintoc_mark() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'the database went away'; END $$`.execute(t.ctx.db);
    await sql`CREATE TRIGGER fail_fintoc_mark BEFORE UPDATE ON processor_sessions FOR EACH ROW
      WHEN (OLD.state = 'declined' AND NEW.state = 'approved') EXECUTE FUNCTION fail_fintoc_mark()`.execute(
      t.ctx.db,
    );
    try {
      await expect(drainDueWork(t.ctx, shop.id)).rejects.toThrow(/went away/);
    } finally {
      await sql`DROP TRIGGER fail_fintoc_mark ON processor_sessions`.execute(t.ctx.db);
      await sql`DROP FUNCTION fail_fintoc_mark()`.execute(t.ctx.db);
    }
    errors.length = 0;
    t.clock.advanceMs(transactionLimits.acquirer.redirectLeaseMs + fintocLimits.lateClaimRecheckMs);
    await drainDueWork(t.ctx, shop.id);
    // Before, the sale was paid with its session left `declined`: reconcile reported Fintoc's movement as matching no
    // sale, which the operator refunds by hand, giving the payer back a sale the merchant was credited.
    await paidOnce('rescue-6', sale.id, intent);
  });
});

// Decision 785: a billing attempt's lease (the cycle's `attempt_lease_until`) is on the service clock. Moving an
// account's sandbox clock past the lease while a worker charges the cycle must not let another worker (another
// process, here a second pool on PostgreSQL) take the cycle's attempt over and send the charge again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import type { AppContext } from '../../../src/platform/context.ts';
import { subscriptionLimits } from '../../../src/limits/index.ts';
import { openNextEvent } from '../../../src/modules/subscriptions/billing.ts';
import { chargeAttempt } from '../../../src/modules/subscriptions/billing-outcome.ts';
import { createPlan, subscribedWithCard } from './helpers.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const dayMs = 24 * 60 * 60 * 1000;

let t: TestApp;
let second: DatabaseHandle | undefined;
let other: AppContext;

beforeAll(async () => {
  t = await startTestApp();
  const url = (t.handle as { url?: string }).url;
  if (onPostgres && url !== undefined) second = await openDatabase({ engine: 'postgres', url });
  other = second === undefined ? t.ctx : { ...t.ctx, db: second.db };
});
afterAll(async () => {
  await second?.close();
  await t.close();
});

describe('a sandbox clock advance during a billing charge', () => {
  it("does not let a second worker take over the cycle's live attempt", async () => {
    const a = await t.createAccount('Reloj durante el cobro');
    const plan = await createPlan(t, a, { name: 'Mensual', amount: 2_000 });
    const sub = await subscribedWithCard(t, a, plan);
    await t.ctx.accountClock.advance(a.id, 32 * dayMs, t.ctx.db);
    // Worker 1 opens the cycle's try (its lease on the cycle) and is about to charge it.
    const attempt = await openNextEvent(t.ctx, { subscriptionId: sub.id });
    if (attempt === null || attempt === 'recorded') throw new Error('no attempt opened');
    // The merchant moves the account's clock an hour on (far past the 2-minute lease, before the next retry).
    await t.ctx.accountClock.advance(
      a.id,
      subscriptionLimits.chargeLeaseMs + 60 * 60 * 1000,
      t.ctx.db,
    );
    // Worker 2: the attempt is live on the service clock, so the cycle is not its to resume.
    expect(await openNextEvent(other, { subscriptionId: sub.id })).toBeNull();
    expect(await openNextEvent(other, { accountId: a.id })).toBeNull();
    await chargeAttempt(t.ctx, attempt);
    const cycle = await t.ctx.db
      .selectFrom('su_cycles')
      .select(['status', 'try_number', 'attempt_key'])
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect(cycle).toEqual({ status: 'success', try_number: 1, attempt_key: null });
  });

  it("resumes a dead worker's attempt once its lease ran out on the service clock", async () => {
    const a = await t.createAccount('Reloj, trabajador caído');
    const plan = await createPlan(t, a, { name: 'Mensual', amount: 2_500 });
    const sub = await subscribedWithCard(t, a, plan);
    await t.ctx.accountClock.advance(a.id, 32 * dayMs, t.ctx.db);
    const dead = await openNextEvent(t.ctx, { subscriptionId: sub.id });
    if (dead === null || dead === 'recorded') throw new Error('no attempt opened');
    expect(await openNextEvent(other, { subscriptionId: sub.id })).toBeNull();
    t.clock.advanceMs(subscriptionLimits.chargeLeaseMs + 1_000);
    const resumed = await openNextEvent(other, { subscriptionId: sub.id });
    expect(resumed).toMatchObject({ transactionId: dead.transactionId, cycleNumber: 1 });
    if (resumed === null || resumed === 'recorded') throw new Error('not resumed');
    await chargeAttempt(other, resumed);
    const charges = await t.ctx.db
      .selectFrom('su_charges as c')
      .innerJoin('transactions as x', 'x.id', 'c.transaction_id')
      .select(['c.try_number', 'x.status'])
      .where('c.subscription_id', '=', sub.id)
      .execute();
    expect(charges).toEqual([{ try_number: 1, status: 'success' }]);
  });
});

// Recurring billing never charges a cycle twice (issue 10 part 5, decision 101): drains racing on one context
// (and, on PostgreSQL, on a second connection pool, as another process would), and a worker that dies in the
// middle of a charge, whose attempt the next drain resumes with the same processor idempotency key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import type { AppContext } from '../../../src/platform/context.ts';
import type { StoredCardCharge } from '../../../src/platform/processors/processor.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { billNext, runBilling } from '../../../src/modules/subscriptions/billing.ts';
import { createPlan, decliningCard, subscribedWithCard } from './helpers.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const dayMs = 24 * 60 * 60 * 1000;

let t: TestApp;
let second: DatabaseHandle | undefined;
/** The same service on an independent pool on PostgreSQL (another process's view); the same context on PGlite. */
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

async function chargesOf(subscriptionId: string) {
  return t.ctx.db
    .selectFrom('su_charges as c')
    .innerJoin('transactions as x', 'x.id', 'c.transaction_id')
    .select(['c.cycle_number', 'c.try_number', 'x.status', 'x.id'])
    .where('c.subscription_id', '=', subscriptionId)
    .where('c.kind', '=', 'cycle')
    .orderBy('c.cycle_number')
    .orderBy('c.try_number')
    .execute();
}

async function capturesOf(account: TestAccount) {
  return t.ctx.db
    .selectFrom('journal_entries as j')
    .innerJoin('transactions as x', 'x.id', 'j.reference')
    .select('j.reference')
    .where('j.kind', '=', 'transaction.capture')
    .where('x.account_id', '=', account.id)
    .execute();
}

describe('billing never charges a cycle twice', () => {
  it('charges each cycle once when drains race over a year of due cycles', async () => {
    const a = await t.createAccount('Carrera');
    const plan = await createPlan(t, a, { name: 'Mensual', amount: 1000, retries_max: 2 });
    const paying = [
      await subscribedWithCard(t, a, plan),
      await subscribedWithCard(t, a, plan),
      await subscribedWithCard(t, a, plan),
    ];
    const declining = await subscribedWithCard(t, a, plan, {}, decliningCard);
    // A year is due at once, and four drains take it together.
    await t.ctx.accountClock.advance(a.id, 365 * dayMs, t.ctx.db);
    const runs = await Promise.all([
      drainDueWork(t.ctx, a.id),
      drainDueWork(other, a.id),
      drainDueWork(t.ctx),
      runBilling(other, { accountId: a.id, limit: 1000 }),
    ]);
    const billed =
      (runs[0]!['subscription-billing'] ?? 0) +
      (runs[1]!['subscription-billing'] ?? 0) +
      (runs[2]!['subscription-billing'] ?? 0) +
      runs[3]!;
    // 3 × 12 cycles, and the declining card's first cycle: three tries, then suspended.
    expect(billed).toBe(3 * 12 + 3);
    for (const sub of paying) {
      const charges = await chargesOf(sub.id);
      expect(charges.map((c) => [c.cycle_number, c.try_number, c.status])).toEqual(
        Array.from({ length: 12 }, (_, i) => [i + 1, 1, 'success']),
      );
    }
    expect(
      (await chargesOf(declining.id)).map((c) => [c.cycle_number, c.try_number, c.status]),
    ).toEqual([
      [1, 1, 'rejected'],
      [1, 2, 'rejected'],
      [1, 3, 'rejected'],
    ]);
    const status = await t.ctx.db
      .selectFrom('su_subscriptions')
      .select('status')
      .where('id', '=', declining.id)
      .executeTakeFirstOrThrow();
    expect(status.status).toBe('suspended');
    expect(await capturesOf(a)).toHaveLength(36);
    await drainDueWork(t.ctx, a.id);
    expect(
      await readBalance(t.ctx.db, { owner: a.id, code: 'wallet_available', currency: 'CLP' }),
    ).toBe(36n * 1000n);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  /** Contexts whose processor records each key; the dying one's worker dies after the processor approved. */
  function processors() {
    const keys: string[] = [];
    const record = (request: StoredCardCharge) => {
      keys.push(request.idempotencyKey);
      return t.ctx.processor.chargeStoredCard(request);
    };
    const dying: AppContext = {
      ...t.ctx,
      processor: {
        ...t.ctx.processor,
        chargeStoredCard: async (request) => {
          await record(request);
          throw new Error('worker died');
        },
      },
    };
    const surviving: AppContext = {
      ...t.ctx,
      processor: { ...t.ctx.processor, chargeStoredCard: record },
    };
    return { keys, dying, surviving };
  }

  it('resumes a charge whose worker died after the processor answered: the same key, one payment', async () => {
    const a = await t.createAccount('Caida');
    const plan = await createPlan(t, a, { name: 'Mensual', amount: 2500 });
    const sub = await subscribedWithCard(t, a, plan);
    const { keys, dying, surviving } = processors();
    await t.ctx.accountClock.advance(a.id, 32 * dayMs, t.ctx.db);
    await expect(billNext(dying, { accountId: a.id })).rejects.toThrow('worker died');
    expect((await chargesOf(sub.id)).map((c) => c.status)).toEqual(['pending']);

    // While the attempt's lease runs, nobody else takes the subscription; it runs on the service clock (decision 785).
    expect(await runBilling(surviving, { accountId: a.id, limit: 10 })).toBe(0);
    t.clock.advanceMs(3 * 60 * 1000);
    expect(await runBilling(surviving, { accountId: a.id, limit: 10 })).toBe(1);
    const charges = await chargesOf(sub.id);
    expect(charges.map((c) => [c.cycle_number, c.try_number, c.status])).toEqual([
      [1, 1, 'success'],
    ]);
    expect(keys).toEqual([charges[0]!.id, charges[0]!.id]);
    expect(await capturesOf(a)).toHaveLength(1);
    const cycle = await t.ctx.db
      .selectFrom('su_cycles')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect(cycle).toMatchObject({ status: 'success', try_number: 1, attempt_key: null });
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  it("resumes a dead worker's charge even after the subscription was deleted, records what the card paid and refunds it", async () => {
    const a = await t.createAccount('Baja en vuelo');
    const plan = await createPlan(t, a, { name: 'Mensual', amount: 3100 });
    const sub = await subscribedWithCard(t, a, plan);
    const { keys, dying, surviving } = processors();
    await t.ctx.accountClock.advance(a.id, 32 * dayMs, t.ctx.db);
    await expect(billNext(dying, { accountId: a.id })).rejects.toThrow('worker died');
    const deleted = await t.call(a, {
      method: 'DELETE',
      url: `/api/sususcription/${sub.id}`,
      sign: true,
    });
    expect(deleted.json()).toEqual({ id: sub.id, status: 'success' });
    t.clock.advanceMs(3 * 60 * 1000);
    expect(await runBilling(surviving, { accountId: a.id, limit: 10 })).toBe(1);
    expect(await runBilling(surviving, { accountId: a.id, limit: 10 })).toBe(0);
    const charges = await chargesOf(sub.id);
    // Paid after the DELETE answered, so given back in the same commit (decision 910).
    expect(charges.map((c) => [c.cycle_number, c.try_number, c.status])).toEqual([
      [1, 1, 'refunded'],
    ]);
    expect(keys).toEqual([charges[0]!.id, charges[0]!.id]);
    const refunds = await t.ctx.db
      .selectFrom('nullifications')
      .select('status')
      .where('transaction_id', '=', charges[0]!.id)
      .execute();
    expect(refunds).toEqual([{ status: 'reverse_completed' }]);
    const cycle = await t.ctx.db
      .selectFrom('su_cycles')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect(cycle).toMatchObject({ status: 'canceled by paymaster', attempt_key: null });
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });
});

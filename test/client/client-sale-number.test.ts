// Decision 940 (4): the typed client reads a whole number past 2^53 - 1 as a bigint (decision 720), wherever it is
// in an answer; its types must say so where the server can send one. A sale's number (`payment.transaction_id` of
// GET /api/transaction/{id}, `transactions[].transaction` of GET /api/suscription/{id}) is a BIGINT sequence: the
// server wrote it `Number(...)` (rounded past 2^53 - 1: it named another sale) and the client's types said `number`,
// so a caller's `n + 1` compiled and threw at run time on a bigint. Now the server answers it exact and the client's
// types say `number | bigint`, as for a balance.
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typeErrors } from '../support/type-errors.ts';
import { startLiveApp, type LiveApp } from './live-app.ts';
import { approvedVisa, createTransaction, submit } from '../modules/transactions/helpers.ts';
import { createPlan, subscribedWithCard } from '../modules/subscriptions/helpers.ts';

const clientIndex = path.resolve(import.meta.dirname, '../../packages/client/src/index.ts');

describe("the client's types for a sale's number", () => {
  it('make a caller handle a bigint, and take number | bigint', () => {
    const consumer = (as: string) => `
import type { TransactionBody, SubscriptionBody } from ${JSON.stringify(clientIndex)};
declare const payment: NonNullable<TransactionBody['payment']>;
declare const sub: SubscriptionBody;
export const a: ${as} = payment.transaction_id;
export const b: ${as} = sub.transactions[0]!.transaction;
`;
    expect(typeErrors(consumer('number | bigint'))).toEqual([]);
    const narrow = typeErrors(consumer('number'));
    expect(narrow).toHaveLength(2);
    for (const error of narrow)
      expect(error).toContain("'bigint' is not assignable to type 'number'");
  }, 60_000);
});

let live: LiveApp;
beforeAll(async () => {
  live = await startLiveApp();
});
afterAll(async () => {
  await live.close();
});

describe("a sale's number past 2^53 - 1 through the client", () => {
  it('reads it exact, as a bigint, in a transaction and in a subscription', async () => {
    const t = live.t;
    // Sale numbers from here on are past the largest integer a double holds exactly.
    await sql`ALTER TABLE transactions ALTER COLUMN number RESTART WITH 9007199254740993`.execute(
      t.ctx.db,
    );
    const merchant = await t.createAccount('Numeros grandes');
    const client = live.clientFor(merchant);
    const numberOf = async (id: string) =>
      BigInt(
        (
          await sql<{
            n: string;
          }>`SELECT number::text AS n FROM transactions WHERE id = ${id}`.execute(t.ctx.db)
        ).rows[0]!.n,
      );

    const sale = await createTransaction(t, merchant, { order: 'big-1' });
    expect((await submit(t, sale.url, 1, approvedVisa)).statusCode).toBe(200);
    const read = await client.getTransaction(sale.id);
    expect(read.httpStatus).toBe(200);
    const payment = (read.body as { payment: { transaction_id: unknown } }).payment;
    expect(payment.transaction_id).toBe(await numberOf(sale.id));

    const plan = await createPlan(t, merchant, { name: 'Caja', amount: 9990, interval: 'month' });
    const subscription = await subscribedWithCard(t, merchant, plan);
    const advanced = await t.call(merchant, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 32 },
    });
    expect(advanced.statusCode, advanced.body).toBe(200);
    const got = await client.getSubscription(subscription.id);
    expect(got.httpStatus).toBe(200);
    const charges = (got.body as { transactions: { transaction: unknown }[] }).transactions;
    expect(charges.length).toBeGreaterThan(0);
    const numbers = await sql<{ n: string }>`
      SELECT number::text AS n FROM transactions WHERE account_id = ${merchant.id} AND id <> ${sale.id}
      ORDER BY number`.execute(t.ctx.db);
    expect(charges.map((c) => c.transaction).sort()).toEqual(
      numbers.rows.map((r) => BigInt(r.n)).sort(),
    );
    // Every answer that shows a subscription's charges: the client's own, the customers' list and both lists.
    const exact = numbers.rows.map((r) => BigInt(r.n));
    // The app's clock started 2026-03-10, when the client and its subscription were made.
    const made = { date_init: '2026-03-10', date_end: '2026-03-11' };
    for (const answer of [
      await client.getSubscriptionClient(subscription.client),
      await client.listSubscriptionCustomers(made),
      await client.listSubscriptions(made),
      await client.listSubscriptionsV3(made),
    ]) {
      expect(
        answer.httpStatus,
        JSON.stringify(answer.body, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
      ).toBe(200);
      const shown: unknown[] = [];
      JSON.stringify(answer.body, (key, value) => {
        if (key === 'transaction') shown.push(value);
        return typeof value === 'bigint' ? String(value) : value;
      });
      expect(shown.length).toBeGreaterThan(0);
      for (const n of shown) expect(exact).toContain(n);
    }
  });
});

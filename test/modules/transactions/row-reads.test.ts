// Decision 715: concurrent payers' pages read their transactions' rows with one statement, and a page never takes a
// read that began before it arrived, so a payer sees what was written before their request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { StatementGate } from '../../support/statement-counter.ts';
import { createTransaction, pathOf } from './helpers.ts';

/** The shared row reads: a SELECT of transactions by `id = ANY(...)`. */
const gate = new StatementGate(({ text }) => text.includes('id = ANY('));
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ dbPlugin: gate });
});
afterAll(async () => {
  await t.close();
});

const page = (url: string) => t.app.inject({ method: 'GET', url: pathOf(url) });

describe("payers' pages reading their rows together (decision 715)", () => {
  it('answers the pages that arrive during a read with the next read, one statement for all', async () => {
    const a = await t.createAccount();
    const sales = await Promise.all(
      Array.from({ length: 9 }, (_, i) => createTransaction(t, a, { order: `rr-${i}` })),
    );
    const held = gate.holdNext();
    const first = page(sales[0]!.url);
    await held.reached;
    const before = gate.watched;
    const later = sales.slice(1).map((s) => page(s.url));
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.release();
    for (const res of [await first, ...(await Promise.all(later))]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('Elige cómo pagar');
    }
    expect(gate.watched - before).toBe(1);
  });

  it('never answers a page with a read that began before it arrived', async () => {
    const a = await t.createAccount();
    const sale = await createTransaction(t, a, { order: 'rr-write' });
    const held = gate.holdNext();
    const first = page(sale.url);
    await held.reached;
    // Written after the held read ran, before the next page arrives (another process, say, rejecting the sale).
    await t.ctx.db
      .updateTable('transactions')
      .set({ status: 'rejected', gateway_message: 'Rechazo de transacción.' })
      .where('id', '=', sale.id)
      .execute();
    const later = page(sale.url);
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.release();
    expect((await first).body).not.toContain('Pago rechazado');
    expect((await later).body).toContain('Pago rechazado');
  });
});

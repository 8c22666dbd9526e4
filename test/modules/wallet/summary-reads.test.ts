// Decision 625: concurrent reads of one wallet page share one statement, and a read never shares one that started
// before it arrived, so a merchant reads its own writes (a payout, then the balance).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { StatementGate } from '../../support/statement-counter.ts';
import { fund, payout } from './wallet-helpers.ts';

/** The wallet summary statements: their rows carry `current_id`. */
const gate = new StatementGate(({ rows }) => rows[0] !== undefined && 'current_id' in rows[0]);
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ dbPlugin: gate });
});
afterAll(async () => {
  await t.close();
});

describe('wallet page reads shared between concurrent readers (decision 625)', () => {
  it('answers readers that arrive during a read with the next read, which sees what they wrote', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    const read = () => t.call(a, { method: 'GET', url: '/api/wallet', sign: true });

    const held = gate.holdNext();
    const first = read();
    await held.reached;
    // The first read's statement has run; its answer is held. A payout commits, then two readers arrive.
    const paid = await payout(t, a, { amount: 1000, order: 'during-read' });
    expect(paid.json().status).toBe('success');
    const before = gate.watched;
    const later = [read(), read()];
    // The readers queue behind the running read; give them time to (wrongly) take its answer.
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.release();

    const firstBody = (await first).json();
    expect(firstBody.amount_available).toBe(10_000);
    for (const res of await Promise.all(later)) {
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.amount_available).toBe(9_000);
      expect(body.wallet_movements[0].order).toBe('during-read');
    }
    // The two later readers were answered by one statement.
    expect(gate.watched - before).toBe(1);
  });

  it('reads other pages and other accounts with statements of their own', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    await fund(t, a, 500);
    await fund(t, b, 700);
    const [pageA, pageA2, pageB] = await Promise.all([
      t.call(a, { method: 'GET', url: '/api/wallet', sign: true }),
      t.call(a, { method: 'GET', url: '/api/wallet?per_page=1&page=2', sign: true }),
      t.call(b, { method: 'GET', url: '/api/wallet', sign: true }),
    ]);
    expect(pageA.json().amount_available).toBe(500);
    expect(pageA.json().filter).toMatchObject({ page: 1 });
    expect(pageA2.json().filter).toMatchObject({ page: 2, per_page: 1 });
    expect(pageA2.json().wallet_movements).toEqual([]);
    expect(pageB.json().amount_available).toBe(700);
  });
});

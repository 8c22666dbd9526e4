// The settlement's due scan (settlement.ts) runs on an index holding only what can still come due (migration 0261),
// not on transactions_status, which holds every sale ever paid. Its conditions are copied here: change both together.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../../support/app.ts';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.close(); });

describe('the settlement due scan', () => {
  it('is planned on transactions_settle_due, in sandbox and production time alike', async () => {
    const plans: string[] = [];
    for (const now of [sql`(now() + cobro_account_offset_ms(account_id) * INTERVAL '1 millisecond')`, sql`now()`]) {
      const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT * FROM transactions
        WHERE status IN ('success', 'refunded partial', 'refunded') AND settled_at IS NULL AND settle_due_at <= ${now}
        ORDER BY settle_due_at LIMIT 1 FOR UPDATE SKIP LOCKED`.execute(t.ctx.db);
      plans.push(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
    for (const plan of plans) expect(plan).toContain('transactions_settle_due');
  });
});

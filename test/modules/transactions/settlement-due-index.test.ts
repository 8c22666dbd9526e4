// The settlement's due scan runs on an index holding only what can still come due (migration 0261), not on
// transactions_status, which holds every sale ever paid. The statement planned here is the one the settlement run
// executes (dueSettlementQuery, compiled with its parameters), never a copy that could drift from it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery } from 'kysely';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { dueSettlementQuery } from '../../../src/modules/transactions/settlement.ts';
import type { AppContext } from '../../../src/platform/context.ts';
import { createContext } from '../../../src/runtime.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function planOf(ctx: AppContext): Promise<string> {
  const compiled = dueSettlementQuery(ctx, ctx.db, { limit: 1 }).compile();
  const plan = await ctx.db.executeQuery<{ 'QUERY PLAN': string }>(
    CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]),
  );
  return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe('the settlement due scan', () => {
  it('is planned on transactions_settle_due, in sandbox and production time alike', async () => {
    expect(t.ctx.config.mode).toBe('sandbox');
    // Built by the composition root, so its account clock reads production time too.
    const production = createContext({ ...t.ctx, config: { ...t.ctx.config, mode: 'production' } });
    for (const ctx of [t.ctx, production]) {
      const plan = await planOf(ctx);
      expect(plan).toContain('transactions_settle_due');
      expect(plan).toMatch(/LockRows/);
    }
  });
});

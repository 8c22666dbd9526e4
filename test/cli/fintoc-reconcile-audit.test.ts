// Decision 675: `cobro fintoc reconcile` exits 1 when it reports findings, and it keeps them
// (fintoc_movement_findings). Before it, operator-audit.ts wrote the row only on exit 0, so the run that changed
// state committed with no audit row while a clean run that wrote nothing left one; the command now says it changed
// something (`changed`) apart from its exit code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../support/app.ts';
import type { FintocSimulator } from '../support/fintoc-simulator.ts';
import { startFintocShop } from '../support/fintoc-shop.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { drainDueWork } from '../../src/platform/work/due-work.ts';
import { payout } from '../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Fintoc', 'cd', {
    payouts: { fundMinor: 100_000 },
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const reconcileRows = async () =>
  (
    await t.ctx.db
      .selectFrom('audit_log')
      .select('id')
      .where('chain', '=', shop.id)
      .where('action', '=', 'cobro fintoc reconcile')
      .execute()
  ).length;

describe('fintoc reconcile and the audit trail', () => {
  it('a run that writes findings leaves its audit row', async () => {
    await payout(t, shop, { amount: 4000, order: 'aud-dup-1' });
    await drainDueWork(t.ctx);
    sim.extraMovements.push({
      id: 'mov_unknown',
      amount: 4000,
      currency: 'CLP',
      resource_id: 'tr_unknown',
      direction: 'outbound',
    });
    sim.extraMovements.push({
      id: 'mov_stranger',
      amount: 777,
      currency: 'CLP',
      resource_id: 'tr_stranger',
      direction: 'outbound',
    });
    const before = await reconcileRows();
    const out = await dispatch(['fintoc', 'reconcile', '--account', shop.id], t.ctx);
    expect(out.exitCode).toBe(1);
    const findings = await t.ctx.db
      .selectFrom('fintoc_movement_findings')
      .select('subject')
      .where('account_id', '=', shop.id)
      .execute();
    expect(findings.map((f) => f.subject)).toContain('mov_stranger');
    expect(await reconcileRows(), 'findings were written with no audit row').toBe(before + 1);
  });
});

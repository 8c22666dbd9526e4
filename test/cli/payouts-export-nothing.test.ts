// Decision 940 (2): `cobro payouts export --bank` with no pending payout for the bank makes no batch and moves
// nothing, so it leaves no audit row: before, the dispatcher wrote one in the `service` chain naming no object.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';
import { serviceChain } from '../../src/platform/audit/record.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const auditRows = () =>
  t.ctx.db.selectFrom('audit_log').select(['chain', 'action', 'target']).orderBy('seq').execute();

describe('cobro payouts export with nothing to export', () => {
  it('answers so, exit 0, and writes no audit row in any chain', async () => {
    const before = await auditRows();
    const run = await runOnContext(['payouts', 'export', '--bank', '0001'], t.ctx);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('no pending payouts to export for bank 0001\n');
    expect(run.stdout).toBe('');
    const after = await auditRows();
    expect(after.filter((r) => r.chain === serviceChain)).toEqual(
      before.filter((r) => r.chain === serviceChain),
    );
    expect(after).toEqual(before);
  });
});

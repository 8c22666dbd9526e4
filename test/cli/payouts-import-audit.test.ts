// Decision 645: `cobro payouts import` records one audit row a payout it moves, in that payout's transaction; before,
// a file with one row it could not apply exited 1 and the dispatcher committed the other rows' money moves and
// callbacks with no operator record at all.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/cli/dispatch.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { payout } from '../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'cd'.repeat(32) } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-audit-'));
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
const run = (...argv: string[]) => dispatch(argv, t.ctx);

describe('payouts import and the operator audit trail', () => {
  it('records the import that moved money even when one row could not be applied', async () => {
    const a = await t.createAccount();
    expect(
      (
        await run(
          ...['wallet', 'credit', '--account', a.id, '--amount', '100000', '--reason', 'f'],
          ...['--key', 'T-fund'],
        )
      ).exitCode,
    ).toBe(0);
    const id = (await payout(t, a, { amount: 5000, order: 'aud-1' })).json()
      .identifier_payout as string;
    expect((await run('payouts', 'export', '--bank', '0001')).exitCode).toBe(0);
    const file = path.join(dir, 'results.csv');
    fs.writeFileSync(
      file,
      ['payout_id,status,reason', `${id},success,`, 'mor00000000000000000,success,'].join('\n'),
    );
    const out = await run('payouts', 'import', file);
    expect(out.exitCode).toBe(1);
    const row = await t.ctx.db
      .selectFrom('payouts')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('success');
    const audit = await sql<{
      action: string;
    }>`SELECT action FROM audit_log WHERE action = 'cobro payouts import'`.execute(t.ctx.db);
    expect(audit.rows, 'the payout was paid by an import that left no audit row').toHaveLength(1);
  });
});

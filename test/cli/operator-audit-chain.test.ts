// Decision 675: an operator's command that changes one account's object (its key, its payout) records its audit row
// in that account's chain, naming the object, as `payouts import` and the dispute commands already did. Before it,
// operator-audit.ts took the chain only from `--account` or an `acc…` operand, so `keys revoke KEY_ID`, `keys
// rotate` and `payouts resolve ID` (like `notifications retry`, `refunds set-bank-details`, `subscriptions cancel`,
// `plans set-pricing` and `payouts export`) fell to the `service` chain, missing from the account's own trail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/cli/dispatch.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { payout } from '../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'cd'.repeat(32) } });
  a = await t.createAccount('Operator chain');
}, 60_000);
afterAll(async () => {
  await t.close();
});
const run = (...argv: string[]) => dispatch(argv, t.ctx);

async function rowsOf(action: string) {
  return t.ctx.db
    .selectFrom('audit_log')
    .select(['chain', 'target', 'actor'])
    .where('action', '=', action)
    .execute();
}

describe("an operator's change of an account's object is in that account's chain", () => {
  it('cobro keys revoke and cobro keys rotate', async () => {
    const made = await run('keys', 'create', '--account', a.id, '--scope', 'read', '--json');
    expect(made.exitCode, made.stderr).toBe(0);
    const first = JSON.parse(made.stdout).id as string;
    const other = JSON.parse(
      (await run('keys', 'create', '--account', a.id, '--scope', 'read', '--json')).stdout,
    ).id as string;
    expect((await run('keys', 'revoke', first)).exitCode).toBe(0);
    expect((await run('keys', 'rotate', other, '--grace-hours', '0')).exitCode).toBe(0);
    expect(await rowsOf('cobro keys revoke')).toEqual([
      { chain: a.id, target: first, actor: 'operator' },
    ]);
    expect(await rowsOf('cobro keys rotate')).toEqual([
      { chain: a.id, target: other, actor: 'operator' },
    ]);
  });

  it('cobro payouts resolve (money back to the wallet), as cobro payouts import records it', async () => {
    const credit = await run(
      'wallet',
      'credit',
      '--key',
      crypto.randomUUID(),
      '--account',
      a.id,
      '--amount',
      '100000',
      '--reason',
      'f',
    );
    expect(credit.exitCode, credit.stderr).toBe(0);
    const id = (await payout(t, a, { amount: 5000, order: 'op-chain-1' })).json()
      .identifier_payout as string;
    const out = await run(
      'payouts',
      'resolve',
      id,
      '--status',
      'banking_error',
      '--reason',
      'Cuenta cerrada',
    );
    expect(out.exitCode, out.stderr).toBe(0);
    expect(await rowsOf('cobro payouts resolve')).toEqual([
      { chain: a.id, target: id, actor: 'operator' },
    ]);
  });

  it("cobro payouts export: one row in each account's chain whose payouts the batch holds", async () => {
    const b = await t.createAccount('Operator chain, second');
    for (const [account, order] of [
      [a, 'op-chain-export-a'],
      [b, 'op-chain-export-b'],
    ] as const) {
      const funded = await run(
        'wallet',
        'credit',
        '--key',
        crypto.randomUUID(),
        '--account',
        account.id,
        '--amount',
        '9000',
        '--reason',
        'f',
      );
      expect(funded.exitCode, funded.stderr).toBe(0);
      expect((await payout(t, account, { amount: 3000, order })).statusCode).toBe(200);
    }
    const out = await run('payouts', 'export', '--bank', '0001');
    expect(out.exitCode, out.stderr).toBe(0);
    const batchId = /batch (pbt\w+)/.exec(out.stderr)![1]!;
    const rows = await rowsOf('cobro payouts export');
    expect(rows.sort((x, y) => x.chain.localeCompare(y.chain))).toEqual(
      [a.id, b.id].sort().map((chain) => ({ chain, target: batchId, actor: 'operator' })),
    );
  });
});

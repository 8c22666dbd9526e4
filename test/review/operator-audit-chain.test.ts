// Review (audit trail): an operator's command that changes one account's object (its key, its payout) records its
// audit row in that account's chain, as docs/audit.md says ("Each account has its own chain (operator changes of
// no account: the chain `service`)") and as `payouts import` and the dispute commands already do. The account's
// own trail (the dashboard's Registro de cambios, `cobro audit list --account`) must show who revoked its key or
// sent its payout back to its wallet.
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
});

// Decision 900: Fintoc sends at most 7,000,000 CLP a transfer in Chile ("Transfer data model"). A larger payout was
// sent as a transfer all the same, refused by Fintoc, and became a banking_error with its money back: never paid.
// It now waits for the bank file (`cobro payouts export`), as an account without Fintoc's payouts does; one of
// exactly the maximum still goes as a transfer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop } from '../../support/fintoc-shop.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { fintocLimits } from '../../../src/limits/index.ts';
import { payout } from '../wallet/wallet-helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;
const maxMinor = Number(fintocLimits.transferAmountMaxMinor);

beforeAll(async () => {
  ({ t, sim, shop } = await startFintocShop('Tienda Grande', 'cd', {
    payouts: { fundMinor: 3 * maxMinor },
  }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const transfersOf = (payoutId: string) =>
  [...sim.transfers.values()].filter(
    (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === payoutId,
  );

async function statusOf(id: string) {
  const row = await t.ctx.db
    .selectFrom('payouts')
    .select('status')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.status;
}

describe("a payout past Fintoc's largest transfer", () => {
  it('goes out in the bank file, not as a transfer; one of the maximum is still a transfer', async () => {
    const large = (await payout(t, shop, { amount: maxMinor + 1, order: 'big-1' })).json();
    const atMax = (await payout(t, shop, { amount: maxMinor, order: 'big-2' })).json();
    expect([large.status, atMax.status]).toEqual(['success', 'success']);
    const largeId = large.identifier_payout as string;
    const atMaxId = atMax.identifier_payout as string;

    await drainDueWork(t.ctx);
    expect(transfersOf(largeId)).toHaveLength(0);
    expect(await statusOf(largeId)).toBe('pending');
    expect(transfersOf(atMaxId)).toHaveLength(1);
    expect(await statusOf(atMaxId)).toBe('processing');

    const file = await dispatch(['payouts', 'export', '--bank', '0001'], t.ctx);
    expect(file.exitCode, file.stderr).toBe(0);
    expect(file.stdout).toContain(largeId);
    expect(file.stdout).not.toContain(atMaxId);
    // Filed once: another dispatch turn still sends nothing for it.
    await drainDueWork(t.ctx);
    expect(transfersOf(largeId)).toHaveLength(0);
  });
});

// Decision 635: opening a chargeback holds `dispute_debt` and the merchant's wallet in the ledger's lock order
// (docs/ledger.md, decision 560: the debt first), as the settlement run, a dispute won and an escrow release take
// them. Before, it held the wallet and only then, in its journal, the debt: a lock cycle with the settlement run on
// PostgreSQL when the merchant owes chargeback debt.
// Both sides below are the real code paths; the second connection only holds the pending settlement for a moment,
// so that the settlement chunk has taken `dispute_debt` when the dispute opens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raceBehindHeldAccounts } from '../../support/pg-locks.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import { runSettlements } from '../../../src/modules/transactions/settlement.ts';
import { ledgerCodes } from '../../../src/platform/ledger/codes.ts';
import { balanceOf, paidSale, setFee, settle } from '../refunds/helpers.ts';
import { payout } from '../wallet/wallet-helpers.ts';
import { disputeCall, expectLedgerClean, openDispute } from './helpers.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

describe.runIf(onPostgres)('dispute open vs settlement lock order (PostgreSQL)', () => {
  let t: TestApp;
  let second: DatabaseHandle;

  beforeAll(async () => {
    t = await startTestApp();
    const url = (t.handle as { url?: string }).url;
    if (url === undefined) throw new Error('the PostgreSQL test database has no url');
    second = await openDatabase({ engine: 'postgres', url });
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  /** A merchant whose first sale was settled, paid out and lost 4,000 to a chargeback: it owes 4,000. */
  async function owingMerchant(): Promise<{ a: TestAccount; first: string }> {
    const a = await t.createAccount();
    await setFee(t, a, '0');
    const first = await paidSale(t, a, 10_000, 'first');
    await settle(t, a);
    expect((await payout(t, a, { amount: 10_000, order: 'all-out' })).json().status).not.toBe(
      'failed',
    );
    const opened = await openDispute(t, a, { transaction_id: first, amount: 4_000 });
    await disputeCall(t, a, opened.dispute.id, 'resolve', { outcome: 'lost' });
    expect(await balanceOf(t, a.id, 'dispute_debt')).toBe(-4_000n);
    return { a, first };
  }

  it('opens a chargeback while the settlement run collects the merchant debt, without a deadlock', async () => {
    const { a, first } = await owingMerchant();
    // A second sale, due for settlement (SETTLEMENT_DELAY_DAYS is 0 in tests).
    await paidSale(t, a, 10_000, 'second');

    const [settlement, dispute] = await raceBehindHeldAccounts(
      second.db,
      t.ctx.db,
      [{ owner: a.id, code: ledgerCodes.pendingSettlement, currency: 'CLP' }],
      // The chunk claims the second sale, locks dispute_debt (it is owed), then waits for pending_settlement.
      () => runSettlements(t.ctx, { accountId: a.id, limit: 10 }),
      // A new chargeback on the first (settled) sale queues on dispute_debt, before the wallet (before decision 635
      // it held the wallet first, which the chunk wants next: a cycle). Released, the chunk gets pending_settlement
      // and the wallet and ends; then the chargeback opens.
      () =>
        t.call(a, {
          method: 'POST',
          url: '/api/sandbox/disputes',
          body: { transaction_id: first, amount: 1_000, reason: 'fraudulent' },
        }),
    );
    const outcome = { settlement, dispute };
    expect(outcome).toEqual({
      settlement: 1,
      dispute: { http: 200, body: expect.stringContaining('"success"') },
    });
    await expectLedgerClean(t);
  });
});

// Decision 635: the collection of a refund waiting for funds (collection.ts) locks the nullification, then the sale's
// transaction row, then the merchant's wallet, the order of a new refund of the same sale (nullify.ts: the
// transaction row first and the wallet after it, decision 060). Before, it took the wallet first and the sale's row
// after (moveNullification -> showOnTransaction), a lock cycle with that refund on PostgreSQL. Both sides are the
// real code paths; the second connection only holds the wallet for a moment so that both queue on it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raceBehindHeldAccounts } from '../../support/pg-locks.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import { ledgerCodes } from '../../../src/platform/ledger/codes.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { runRefundCollection } from '../../../src/modules/refunds/collection.ts';
import { fund, payout } from '../wallet/wallet-helpers.ts';
import { nullify, paidSale, setFee, settle } from './helpers.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

describe.runIf(onPostgres)(
  'refund collection vs a new refund of the same sale (PostgreSQL)',
  () => {
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

    it('collects a waiting refund while the merchant refunds more of the same sale, without a deadlock', async () => {
      const a = await t.createAccount();
      await setFee(t, a, '0');
      const sale = await paidSale(t, a, 10_000, 'gone');
      await settle(t, a);
      expect((await payout(t, a, { amount: 10_000, order: 'all-out' })).json().status).not.toBe(
        'failed',
      );
      // The sale's money left in the payout: the first refund waits for funds.
      const waiting = await nullify(t, a, { id: sale, amount: 3_000 });
      expect(waiting.json().nullify.status_nullify, waiting.body).toBe('awaiting_funds');
      // Money arrives (not through a settlement, so nothing collects it yet).
      await fund(t, a, 20_000);

      const [collection, refund] = await raceBehindHeldAccounts(
        second.db,
        t.ctx.db,
        [{ owner: a.id, code: ledgerCodes.walletAvailable, currency: 'CLP' }],
        // The due work's collection: locks the waiting refund and its sale's row, then queues on the wallet.
        () => runRefundCollection(t.ctx, { accountId: a.id, limit: 10 }),
        // A second refund of the same sale queues on the sale's row (before decision 635 it took the row, and then
        // queued on the wallet while the collection, holding the wallet, wanted the row). Released, the collection
        // takes the wallet and ends; the refund then takes the row and the wallet.
        () => nullify(t, a, { id: sale, amount: 2_000 }),
      );
      const outcome = { collection, refund };
      expect(outcome).toEqual({
        collection: 1,
        refund: { http: 200, body: expect.stringContaining('"success"') },
      });
      expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
    });
  },
);

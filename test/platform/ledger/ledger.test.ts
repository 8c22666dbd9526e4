// The Ledger port on a real database (PGlite, or PostgreSQL with DATABASE_URL): every movement balances, a refused
// movement writes nothing, and `cobro ledger verify` stays clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../../src/platform/ledger/sql-ledger.ts';
import { CompiledQuery } from 'kysely';
import {
  journalKinds,
  journalRowsParams,
  ledgerCodes,
  pendingThenWallet,
  releaseJournal,
  SYSTEM_OWNER,
  type Ledger,
  type LedgerKey,
} from '../../../src/platform/ledger/ledger.ts';
import { postJournalText } from '../../../src/platform/ledger/journal-statement.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { inTransaction } from '../../../src/platform/db/unit-of-work.ts';
import { cloneTestDatabase, type TestDatabaseHandle } from '../../support/database.ts';

let handle: TestDatabaseHandle;
let ledger: Ledger;
beforeAll(async () => {
  handle = await cloneTestDatabase();
  ledger = createLedger();
});
afterAll(async () => {
  await handle.close();
});

const at = new Date('2026-03-10T15:00:00Z');
const k = (owner: string, code: string): LedgerKey => ({ owner, code, currency: 'CLP' });
const balance = (owner: string, code: string) => ledger.balance(handle.db, k(owner, code));
const journalCount = async (reference: string) =>
  (
    await handle.db
      .selectFrom('journal_entries')
      .select('id')
      .where('reference', '=', reference)
      .execute()
  ).length;

async function fund(
  owner: string,
  code: string,
  amountMinor: bigint,
  reference = `fund-${owner}-${code}`,
) {
  await inTransaction(handle.db, (tx) =>
    ledger.post(tx, {
      kind: journalKinds.walletAdjustment,
      reference,
      at,
      postings: [
        { ...k(SYSTEM_OWNER, ledgerCodes.operatorAdjustments), amountMinor: -amountMinor },
        { ...k(owner, code), amountMinor },
      ],
    }),
  );
}

describe('Ledger', () => {
  it('a system account created in a transaction that rolls back is not remembered: later journals post', async () => {
    // A currency no journal used yet: its processor clearing account is created by the first journal.
    const usd = (owner: string, code: string): LedgerKey => ({ owner, code, currency: 'USD' });
    const journal = (reference: string) => ({
      kind: journalKinds.walletAdjustment,
      reference,
      at,
      postings: [
        { ...usd(SYSTEM_OWNER, ledgerCodes.operatorAdjustments), amountMinor: -500n },
        { ...usd('accRollback', ledgerCodes.walletAvailable), amountMinor: 500n },
      ],
    });
    await expect(
      inTransaction(handle.db, async (tx) => {
        await ledger.post(tx, journal('rolled-back-1'));
        await ledger.post(tx, journal('rolled-back-2')); // reads the account the first one created
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await inTransaction(handle.db, (tx) => ledger.post(tx, journal('after-rollback')));
    expect(await ledger.balance(handle.db, usd('accRollback', ledgerCodes.walletAvailable))).toBe(
      500n,
    );
    expect((await verifyLedger(handle.db)).ok).toBe(true);
  });

  it('plans a reservation available -> reserved when covered, and reports the shortfall, writing nothing, when not', async () => {
    await fund('accR', ledgerCodes.walletAvailable, 1000n);
    const move = {
      kind: journalKinds.payoutReserved,
      reference: 'mor1',
      at,
      owner: 'accR',
      currency: 'CLP',
      amountMinor: 600n,
    };
    // The caller's statement writes the planned rows (the payout's, wallet/payout-statement.ts): here the ledger's own.
    const ok = await inTransaction(handle.db, async (tx) => {
      const plan = await ledger.planReservations(tx, [{ move, then: [] }]);
      await tx.executeQuery(CompiledQuery.raw(postJournalText, [...journalRowsParams(plan.rows!)]));
      return plan.checked[0]!;
    });
    expect(ok.ok).toBe(true);
    expect(await balance('accR', ledgerCodes.walletAvailable)).toBe(400n);
    expect(await balance('accR', ledgerCodes.walletReserved)).toBe(600n);
    const short = await inTransaction(handle.db, async (tx) => {
      const plan = await ledger.planReservations(tx, [
        { move: { ...move, reference: 'mor2', amountMinor: 401n }, then: [] },
      ]);
      expect(plan.rows).toBeNull();
      return plan.checked[0]!;
    });
    expect(short).toEqual({
      ok: false,
      requiredMinor: 401n,
      availableMinor: 400n,
      shortfallMinor: 1n,
    });
    expect(await journalCount('mor2')).toBe(0);
    const released = await inTransaction(handle.db, (tx) =>
      ledger.post(tx, releaseJournal({ ...move, kind: journalKinds.payoutReleased })),
    );
    expect(released.lines.map((l) => [l.code, l.balanceAfterMinor])).toEqual([
      [ledgerCodes.walletReserved, 0n],
      [ledgerCodes.walletAvailable, 1000n],
    ]);
    expect(await verifyLedger(handle.db)).toMatchObject({ ok: true });
  });

  it("takes a refund from the transaction's pending settlement first, then the wallet, else reports the shortfall", async () => {
    await fund('accT', ledgerCodes.pendingSettlement, 500n);
    await fund('accT', ledgerCodes.walletAvailable, 200n);
    const refundTo = k(SYSTEM_OWNER, ledgerCodes.refundClearing);
    // Only 300 of the shared pending settlement belongs to this transaction.
    const taken = await inTransaction(handle.db, (tx) =>
      ledger.take(tx, {
        kind: journalKinds.transactionSettlement,
        reference: 'trxA',
        at,
        currency: 'CLP',
        amountMinor: 450n,
        sources: pendingThenWallet('accT', 'CLP', 300n),
        to: refundTo,
      }),
    );
    expect(taken).toMatchObject({ ok: true, partsMinor: [300n, 150n] });
    expect(await balance('accT', ledgerCodes.pendingSettlement)).toBe(200n);
    expect(await balance('accT', ledgerCodes.walletAvailable)).toBe(50n);
    expect(await balance(SYSTEM_OWNER, ledgerCodes.refundClearing)).toBe(450n);
    const short = await inTransaction(handle.db, (tx) =>
      ledger.take(tx, {
        kind: journalKinds.transactionSettlement,
        reference: 'trxB',
        at,
        currency: 'CLP',
        amountMinor: 100n,
        sources: pendingThenWallet('accT', 'CLP', 20n),
        to: refundTo,
      }),
    );
    expect(short).toEqual({
      ok: false,
      requiredMinor: 100n,
      availableMinor: 70n,
      shortfallMinor: 30n,
    });
    expect(await journalCount('trxB')).toBe(0);
    expect(await verifyLedger(handle.db)).toMatchObject({ ok: true });
  });

  it('sweeps a whole balance, holds balances under lock, and refuses an unbalanced journal', async () => {
    await fund('evB', ledgerCodes.beneficiaryPayable, 77n);
    const sweep = (reference: string) =>
      inTransaction(handle.db, (tx) =>
        ledger.sweep(tx, {
          kind: journalKinds.eventBeneficiaryPayout,
          reference,
          at,
          from: k('evB', ledgerCodes.beneficiaryPayable),
          to: k(SYSTEM_OWNER, ledgerCodes.bankClearing),
        }),
      );
    expect((await sweep('ev1'))?.movedMinor).toBe(77n);
    expect(await sweep('ev2')).toBeNull();
    expect(await balance('evB', ledgerCodes.beneficiaryPayable)).toBe(0n);
    const held = await inTransaction(handle.db, (tx) =>
      ledger.hold(tx, [
        k('accR', ledgerCodes.walletReserved),
        k('accR', ledgerCodes.walletAvailable),
        k('nobody', ledgerCodes.walletAvailable),
      ]),
    );
    expect(held).toEqual([0n, 1000n, 0n]);
    await expect(
      inTransaction(handle.db, (tx) =>
        ledger.post(tx, {
          kind: journalKinds.walletAdjustment,
          reference: 'bad',
          at,
          postings: [
            { ...k('accR', ledgerCodes.walletAvailable), amountMinor: 1n },
            { ...k(SYSTEM_OWNER, ledgerCodes.operatorAdjustments), amountMinor: -2n },
          ],
        }),
      ),
    ).rejects.toThrow(/sum to zero/);
    expect(await verifyLedger(handle.db)).toMatchObject({ ok: true });
  });
  it("posts a payment's capture and fee together: one lock, running balances from one journal to the next", async () => {
    const posted = await inTransaction(handle.db, (tx) =>
      ledger.postAll(tx, [
        {
          kind: journalKinds.transactionCapture,
          reference: 'trx-all',
          at,
          postings: [
            { ...k(SYSTEM_OWNER, ledgerCodes.processorClearing), amountMinor: -10_000n },
            { ...k('accA', ledgerCodes.pendingSettlement), amountMinor: 10_000n },
          ],
        },
        {
          kind: journalKinds.transactionFee,
          reference: 'trx-all',
          at,
          postings: [
            { ...k('accA', ledgerCodes.pendingSettlement), amountMinor: -300n },
            { ...k(SYSTEM_OWNER, ledgerCodes.serviceFees), amountMinor: 300n },
          ],
        },
      ]),
    );
    expect(posted.map((j) => j.lines.map((l) => l.balanceAfterMinor))).toEqual([
      [null, 10_000n],
      [9_700n, null],
    ]);
    expect(await balance('accA', ledgerCodes.pendingSettlement)).toBe(9_700n);
    expect(await journalCount('trx-all')).toBe(2);
    expect(await verifyLedger(handle.db)).toMatchObject({ ok: true });
  });
});

// The ledger's running balances (decision 431): each posting's balance_after_minor is computed in JavaScript from
// the balances read under the accounts' locks, so the statement that writes it asserts it against the account's
// new balance, and `cobro ledger verify` recomputes every one of them from the postings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { runOnContext } from '../../support/cli-in-process.ts';
import {
  journalKinds,
  ledgerCodes,
  SYSTEM_OWNER,
  type LedgerKey,
} from '../../../src/platform/ledger/ledger.ts';
import { lockLedgerAccounts } from '../../../src/platform/ledger/post.ts';
import { postJournal } from '../../../src/platform/ledger/journal-statement.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { inTransaction } from '../../../src/platform/db/unit-of-work.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const at = new Date('2026-03-10T15:00:00Z');
const wallet = (owner: string): LedgerKey => ({
  owner,
  code: ledgerCodes.walletAvailable,
  currency: 'CLP',
});
const adjustments: LedgerKey = {
  owner: SYSTEM_OWNER,
  code: ledgerCodes.operatorAdjustments,
  currency: 'CLP',
};

async function credit(owner: string, amountMinor: bigint, reference: string) {
  await inTransaction(t.ctx.db, (tx) =>
    t.ctx.ledger.post(tx, {
      kind: journalKinds.walletAdjustment,
      reference,
      at,
      postings: [
        { ...adjustments, amountMinor: -amountMinor },
        { ...wallet(owner), amountMinor },
      ],
    }),
  );
}

describe('running balances', () => {
  it('are asserted where they are written: a balance moved after it was read under the lock fails the statement', async () => {
    await credit('acc_run_a', 1000n, 'run-a-1');
    const stale = inTransaction(t.ctx.db, async (tx) => {
      const held = await lockLedgerAccounts(tx, [wallet('acc_run_a')]);
      // The held balance (1000) is now stale: the journal's running balance would say 1100 where the account holds 1105.
      await sql`UPDATE ledger_accounts SET balance_minor = balance_minor + 5 WHERE owner = 'acc_run_a'`.execute(
        tx,
      );
      return postJournal(
        tx,
        {
          kind: journalKinds.walletAdjustment,
          reference: 'run-a-2',
          at,
          postings: [
            { ...adjustments, amountMinor: -100n },
            { ...wallet('acc_run_a'), amountMinor: 100n },
          ],
        },
        held,
      );
    });
    await expect(stale).rejects.toThrow(/would hold 1105 but its postings run to 1100/);
    expect(await t.ctx.ledger.balance(t.ctx.db, wallet('acc_run_a'))).toBe(1000n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('are recomputed by ledger verify, which names a posting whose running balance is wrong', async () => {
    await credit('acc_run_b', 700n, 'run-b-1');
    await credit('acc_run_b', 300n, 'run-b-2');
    await credit('acc_run_b', 50n, 'run-b-3');
    const clean = await runOnContext(['ledger', 'verify'], t.ctx);
    expect(clean.code, clean.stderr).toBe(0);
    // The middle posting's running balance corrupted; the account's balance and every sum still agree.
    const middle = await sql<{ id: string }>`
      SELECT p.id::text AS id FROM postings p JOIN ledger_accounts a ON a.id = p.ledger_account_id JOIN journal_entries j ON j.id = p.journal_id
      WHERE a.owner = 'acc_run_b' AND j.reference = 'run-b-2'`.execute(t.ctx.db);
    const id = middle.rows[0]!.id;
    await sql`UPDATE postings SET balance_after_minor = 1001 WHERE id = ${id}::bigint`.execute(
      t.ctx.db,
    );
    const fault = `posting ${id} of ledger account acc_run_b/wallet_available/CLP records a running balance of 1001 but the postings up to it sum to 1000`;
    expect(await verifyLedger(t.ctx.db)).toEqual({ ok: false, fault });
    const dirty = await runOnContext(['ledger', 'verify'], t.ctx);
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toContain(fault);
    const json = await runOnContext(['ledger', 'verify', '--json'], t.ctx);
    expect(JSON.parse(json.stdout)).toEqual({ ok: false, fault });
    await sql`UPDATE postings SET balance_after_minor = 1000 WHERE id = ${id}::bigint`.execute(
      t.ctx.db,
    );
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

// A payout's funds check locks the wallet's accounts (an upsert that returns their balances as the previous holder
// committed them) and one more statement writes its row, journals and movements from those balances
// (Ledger.planReservations, then payout-statement.ts); in a group commit the next payout starts from the balances the one before it wrote (decision
// 220). If a balance were read from a statement's snapshot instead, concurrent requests would overdraw or write
// balances that do not follow each other. This race mixes every kind of request on one wallet so each one waits
// for another's commit, and checks the result line by line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { balance, expectMovementChain, fund, payout } from './wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('payouts racing credits and immediate outcomes on one wallet', () => {
  it('never overdraws, and every balance written follows the one before it', async () => {
    const a = await t.createAccount();
    const fundedMinor = 20_000;
    await fund(t, a, fundedMinor);
    // 1000 is paid at once, 1500 rejected at once (reserved and released in the same statement), 1234 stays pending.
    const amounts = [1000, 1500, 1234, 1000, 1000];
    const creditMinor = 700;
    const requests = Array.from({ length: 80 }, (_, i) =>
      i % 8 === 7
        ? t.call(a, {
            method: 'POST',
            url: '/api/sandbox/wallet/credit',
            body: { amount: creditMinor, currency: 'CLP', reason: 'race' },
          })
        : payout(t, a, { amount: amounts[i % amounts.length], order: `race-${i}` }),
    );
    const answers = (await Promise.all(requests)).map((r) => {
      expect(r.statusCode, r.body).toBe(200);
      return r.json();
    });
    const credits = answers.filter((b) => b.amount_available !== undefined).length;
    const payouts = answers.filter((b) => b.amount_available === undefined);
    expect(payouts.every((b) => b.status === 'success' || b.type === 'insufficient_funds')).toBe(
      true,
    );
    const refused = payouts.filter((b) => b.status !== 'success').length;
    expect(refused).toBeGreaterThan(0);

    const rows = await t.ctx.db
      .selectFrom('payouts')
      .select(['amount_minor', 'status'])
      .where('account_id', '=', a.id)
      .execute();
    expect(rows).toHaveLength(payouts.length - refused);
    const spentMinor = rows
      .filter((r) => r.status !== 'banking_error')
      .reduce((sum, r) => sum + Number(r.amount_minor), 0);
    const availableMinor = fundedMinor + credits * creditMinor - spentMinor;
    expect(availableMinor).toBeGreaterThanOrEqual(0);
    expect(await balance(t, a)).toBe(availableMinor);

    // Each movement's balance is the one before it plus its amount: a stale locked balance breaks the chain.
    expect(await expectMovementChain(t, a.id)).toBe(availableMinor);
    // The same for every posting of the wallet's accounts (available and reserved).
    const postings = await sql<{ code: string; amount_minor: string; balance_after_minor: string }>`
      SELECT a.code, p.amount_minor::text, p.balance_after_minor::text FROM postings p JOIN ledger_accounts a ON a.id = p.ledger_account_id
      WHERE a.owner = ${a.id} ORDER BY p.id`.execute(t.ctx.db);
    const running = new Map<string, bigint>();
    for (const p of postings.rows) {
      const after = (running.get(p.code) ?? 0n) + BigInt(p.amount_minor);
      expect(BigInt(p.balance_after_minor), p.code).toBe(after);
      expect(after >= 0n, p.code).toBe(true);
      running.set(p.code, after);
    }
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

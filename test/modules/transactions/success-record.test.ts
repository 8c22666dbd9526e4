// The checkout's approved payments recorded by one statement (decision 730, migration 0520's cobro_record_successes),
// on both engines: a group of payments is one statement and one transaction (no BEGIN, no COMMIT: the rows' xmin is
// one), each row paid once with its attempt, its callback, its capture and its fee, the fee as computeFeeMinor
// computes it (half up, capped at the amount), the pending settlement's running balance right, the ledger verified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { StatementCounter } from '../../support/statement-counter.ts';
import { createTransaction } from './helpers.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { ledgerCodes } from '../../../src/platform/ledger/ledger.ts';
import { claimAttempt } from '../../../src/modules/transactions/attempt-claim.ts';
import {
  recordSuccesses,
  type ApprovedPayment,
} from '../../../src/modules/transactions/success-record.ts';
import { computeFeeMinor, setFeeRule } from '../../../src/modules/transactions/fees.ts';

const counter = new StatementCounter();
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ dbPlugin: counter });
});
afterAll(async () => {
  await t.close();
});

const approved = {
  approved: true as const,
  authorizationCode: '123456',
  cardType: 'VN',
  cardBrand: 'Visa',
  cardLast4: '6623',
  cardToken: null,
};

/** Creates and claims a checkout of each amount, as the checkout's POST does before it charges. */
async function claimedPayments(
  account: TestAccount,
  amounts: readonly number[],
): Promise<ApprovedPayment[]> {
  const payments: ApprovedPayment[] = [];
  for (const [i, amount] of amounts.entries()) {
    const made = await createTransaction(t, account, {
      order: `r-${i}`,
      amount,
      urlnotify: 'https://merchant.example/notify',
    });
    const attemptId = `att_record_${account.id}_${i}`;
    const claim = await claimAttempt(t.ctx, {
      transactionId: made.id,
      accountId: account.id,
      attemptId,
      leaseMs: 60_000,
    });
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    payments.push({
      facts: {
        transactionId: made.id,
        accountId: account.id,
        attemptId,
        method: { payment: 1, name: 'Tarjeta' },
        installments: 1,
        payerIdentifier: null,
        payerBank: null,
        payerIp: '127.0.0.1',
      },
      outcome: approved,
      claimed: claim.row,
    });
  }
  return payments;
}

describe("the checkout's approved payments in one statement", () => {
  it('records a group of payments by one statement in one transaction, each fee as computeFeeMinor says', async () => {
    const account = await t.createAccount();
    const rule = { percentBp: 3333, fixedMinor: 7n };
    await setFeeRule(t.ctx.db, account.id, 1, rule, new Date('2026-01-01T00:00:00Z'));
    // Half-up rounding both ways (15 x 0.3333 = 4.9995, 1 x 0.3333 = 0.33), the cap (a fee above the amount).
    const amounts = [15, 1, 9_999, 10_001, 250_000];
    const payments = await claimedPayments(account, amounts);
    counter.count = 0;
    const answers = await recordSuccesses(t.ctx, account.id, payments);
    expect(counter.count).toBe(1);
    expect(answers.map((a) => a.kind)).toEqual(amounts.map(() => 'approved'));

    const { rows } = await sql<{ id: string; fee_minor: string; writer: string; attempts: string }>`
      SELECT t.id, t.fee_minor::text AS fee_minor, t.xmin::text AS writer,
        (SELECT count(*) FROM payment_attempts p WHERE p.transaction_id = t.id)::text AS attempts
      FROM transactions t WHERE t.account_id = ${account.id} ORDER BY t."order"`.execute(t.ctx.db);
    expect(new Set(rows.map((r) => r.writer)).size).toBe(1);
    expect(rows.map((r) => r.attempts)).toEqual(amounts.map(() => '1'));
    const fees = amounts.map((a) => computeFeeMinor(BigInt(a), rule));
    expect(rows.map((r) => BigInt(r.fee_minor))).toEqual(fees);
    const netMinor = amounts.reduce((sum, a, i) => sum + BigInt(a) - fees[i]!, 0n);
    expect(
      await t.ctx.ledger.balance(t.ctx.db, {
        owner: account.id,
        code: ledgerCodes.pendingSettlement,
        currency: 'CLP',
      }),
    ).toBe(netMinor);
    // A capture and a fee each, every journal summing to zero.
    const { rows: lines } = await sql<{ kind: string; total: string }>`
      SELECT j.kind, SUM(p.amount_minor)::text AS total
      FROM journal_entries j JOIN postings p ON p.journal_id = j.id
      WHERE j.reference = ANY(${rows.map((r) => r.id)}) GROUP BY j.id, j.kind`.execute(t.ctx.db);
    expect(lines.filter((l) => l.kind === 'transaction.capture')).toHaveLength(amounts.length);
    expect(lines.filter((l) => l.kind === 'transaction.fee')).toHaveLength(amounts.length);
    expect(lines.every((l) => l.total === '0')).toBe(true);
    const { rows: callbacks } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM notifications WHERE account_id = ${account.id}`.execute(
      t.ctx.db,
    );
    expect(callbacks[0]!.n).toBe(String(amounts.length));
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });

    // Recorded again by the same attempts (a group's answer lost): answered paid, nothing written again.
    const again = await recordSuccesses(t.ctx, account.id, payments);
    expect(again.map((a) => a.kind)).toEqual(amounts.map(() => 'approved'));
    const { rows: journals } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM journal_entries WHERE reference = ANY(${rows.map((r) => r.id)})`.execute(
      t.ctx.db,
    );
    expect(journals[0]!.n).toBe(String(2 * amounts.length));
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('writes no fee journal when the fee is zero and starts a merchant’s pending settlement it never had', async () => {
    const account = await t.createAccount();
    const payments = await claimedPayments(account, [5_000, 7_000]);
    const answers = await recordSuccesses(t.ctx, account.id, payments);
    expect(answers.map((a) => a.kind)).toEqual(['approved', 'approved']);
    const { rows } = await sql<{ kind: string; after: string | null }>`
      SELECT j.kind, p.balance_after_minor::text AS after FROM journal_entries j
        JOIN postings p ON p.journal_id = j.id JOIN ledger_accounts a ON a.id = p.ledger_account_id
      WHERE a.owner = ${account.id} ORDER BY p.id`.execute(t.ctx.db);
    expect(rows).toEqual([
      { kind: 'transaction.capture', after: '5000' },
      { kind: 'transaction.capture', after: '12000' },
    ]);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

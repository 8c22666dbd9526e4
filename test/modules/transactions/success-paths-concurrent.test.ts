// Review of decision 730 (guard): one merchant's checkout successes recorded at once by cobro_record_successes from
// two apps' groups (two processes' lanes: two groups of one merchant in flight together) and by the TypeScript
// path (recordOutcome: an extension's or a return's success locks the same pending settlement), in two currencies,
// while the merchant's fee rule changes: every payment is paid once, its row's fee is its fee journal's amount,
// the pending settlements hold the nets, every running balance chains (the ledger verifies). On both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createTransaction } from './helpers.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { ledgerCodes } from '../../../src/platform/ledger/ledger.ts';
import { claimAttempt } from '../../../src/modules/transactions/attempt-claim.ts';
import { recordSuccessGrouped } from '../../../src/modules/transactions/success-group-commit.ts';
import {
  recordOutcome,
  type AttemptFacts,
  type AttemptOutcome,
} from '../../../src/modules/transactions/attempt-outcome.ts';
import { setFeeRule } from '../../../src/modules/transactions/fees.ts';
import type { TransactionRow } from '../../../src/modules/transactions/repository.ts';

let t: TestApp;
let other: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  other = await startTestApp({ sharing: t });
});
afterAll(async () => {
  await other.close();
  await t.close();
});

const approved = {
  approved: true as const,
  authorizationCode: '111222',
  cardType: 'VD',
  cardBrand: 'Visa',
  cardLast4: '6623',
  cardToken: null,
};

interface Claimed {
  readonly facts: AttemptFacts;
  readonly claimed: TransactionRow;
}

async function claimed(account: TestAccount, i: number): Promise<Claimed> {
  const currency = i % 4 === 3 ? 'PEN' : 'CLP';
  const payment = currency === 'PEN' ? 25 : 1;
  const made = await createTransaction(t, account, {
    order: `k-${i}`,
    amount: 1_000 + 37 * i,
    currency,
    urlnotify: 'https://merchant.example/notify',
  });
  const attemptId = `att_conc_${account.id}_${i}`;
  const claim = await claimAttempt(t.ctx, {
    transactionId: made.id,
    accountId: account.id,
    attemptId,
    leaseMs: 60_000,
  });
  if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
  return {
    facts: {
      transactionId: made.id,
      accountId: account.id,
      attemptId,
      method: { payment, name: 'Tarjeta' },
      installments: 1,
      payerIdentifier: null,
      payerBank: null,
      payerIp: '127.0.0.1',
    },
    claimed: claim.row,
  };
}

describe('decision 730: the function beside the TypeScript path, concurrently', () => {
  it('pays every payment once, each row’s fee its journal’s, the ledger verified', async () => {
    const account = await t.createAccount();
    const at = new Date('2026-01-01T00:00:00Z');
    await setFeeRule(t.ctx.db, account.id, 1, { percentBp: 150, fixedMinor: 9n }, at);
    await setFeeRule(t.ctx.db, account.id, 25, { percentBp: 420, fixedMinor: 0n }, at);
    const payments: Claimed[] = [];
    for (let i = 0; i < 24; i++) payments.push(await claimed(account, i));

    const answers = await Promise.all([
      ...payments.map((p, i): Promise<AttemptOutcome | null> => {
        if (i % 3 === 0) return recordOutcome(t.ctx, p.facts, approved);
        const app = i % 3 === 1 ? t : other;
        return recordSuccessGrouped(app.ctx, p.facts, approved, p.claimed);
      }),
      // The fee rule changed while the payments are recorded: each payment takes one rule or the other, whole.
      setFeeRule(t.ctx.db, account.id, 1, { percentBp: 990, fixedMinor: 1n }, at).then(() => null),
    ]);
    expect(answers.slice(0, payments.length).map((a) => a?.kind)).toEqual(
      payments.map(() => 'approved'),
    );

    const { rows } = await sql<{
      id: string;
      currency: string;
      amount: string;
      fee: string;
      captures: string;
      captured: string | null;
      fees: string;
      charged: string | null;
      attempts: string;
      callbacks: string;
    }>`
      SELECT t.id, t.currency, t.amount_minor::text AS amount, t.fee_minor::text AS fee,
        (SELECT count(*) FROM journal_entries j WHERE j.reference = t.id AND j.kind = 'transaction.capture')::text AS captures,
        (SELECT sum(p.amount_minor) FROM journal_entries j JOIN postings p ON p.journal_id = j.id
          WHERE j.reference = t.id AND j.kind = 'transaction.capture' AND p.amount_minor > 0)::text AS captured,
        (SELECT count(*) FROM journal_entries j WHERE j.reference = t.id AND j.kind = 'transaction.fee')::text AS fees,
        (SELECT sum(p.amount_minor) FROM journal_entries j JOIN postings p ON p.journal_id = j.id
          WHERE j.reference = t.id AND j.kind = 'transaction.fee' AND p.amount_minor > 0)::text AS charged,
        (SELECT count(*) FROM payment_attempts a WHERE a.transaction_id = t.id)::text AS attempts,
        (SELECT count(*) FROM notifications n WHERE n.account_id = t.account_id
          AND n.payload->>'order' = t."order")::text AS callbacks
      FROM transactions t WHERE t.account_id = ${account.id} ORDER BY t.id`.execute(t.ctx.db);
    expect(rows).toHaveLength(payments.length);
    const nets = new Map<string, bigint>();
    for (const r of rows) {
      expect({
        id: r.id,
        captures: r.captures,
        attempts: r.attempts,
        callbacks: r.callbacks,
      }).toEqual({
        id: r.id,
        captures: '1',
        attempts: '1',
        callbacks: '1',
      });
      expect(r.captured).toBe(r.amount);
      // The fee the row shows is the fee the ledger took, and none when it is zero.
      expect(r.fees).toBe(r.fee === '0' ? '0' : '1');
      expect(r.charged ?? '0').toBe(r.fee);
      nets.set(r.currency, (nets.get(r.currency) ?? 0n) + BigInt(r.amount) - BigInt(r.fee));
    }
    for (const [currency, net] of nets)
      expect(
        await t.ctx.ledger.balance(t.ctx.db, {
          owner: account.id,
          code: ledgerCodes.pendingSettlement,
          currency,
        }),
      ).toBe(net);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

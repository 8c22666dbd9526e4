// Review of decision 730 (guard): a checkout payment's success recorded by cobro_record_successes (migration 0520,
// success-record.ts) leaves exactly what the TypeScript path (attempt-outcome.ts recordOutcome: lockForOutcomeText,
// markPaid, Ledger.postAll) leaves for the same inputs, field by field: the transaction rows, the payment attempts
// (numbered after a decline), the callbacks, the journals and postings with their running balances, the merchant's
// pending settlement accounts and their flags, and the rows each path answers. Two merchants with the same fee
// rules pay the same checkouts (two currencies, a fee rounded half up, a fee capped at the amount so the net is
// zero, a fee of zero, a row with no urlnotify, a retried payment), in two rounds so the second starts from a
// pending settlement that already holds money: one merchant's as one group (the function), the other's one by one
// (the TypeScript path). On both engines (DATABASE_URL selects PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createTransaction } from './helpers.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { claimAttempt } from '../../../src/modules/transactions/attempt-claim.ts';
import {
  recordSuccesses,
  type ApprovedPayment,
} from '../../../src/modules/transactions/success-record.ts';
import {
  recordOutcome,
  type AttemptFacts,
  type AttemptOutcome,
} from '../../../src/modules/transactions/attempt-outcome.ts';
import { setFeeRule } from '../../../src/modules/transactions/fees.ts';
import type { TransactionRow } from '../../../src/modules/transactions/repository.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const approved = {
  approved: true as const,
  authorizationCode: '654321',
  cardType: 'VN',
  cardBrand: 'Visa',
  cardLast4: '6623',
  cardToken: null,
};
const declined = {
  approved: false as const,
  payerMessage: 'Rechazada',
  gatewayMessage: 'rejected transaction',
  cardBrand: 'Mastercard',
  cardLast4: '0568',
};

interface Case {
  readonly order: string;
  readonly amount: number;
  readonly currency: 'CLP' | 'PEN';
  readonly payment: number;
  readonly notify: boolean;
  /** A declined attempt first, so the approved one is the second. */
  readonly retried: boolean;
}

const cases: readonly Case[] = [
  { order: 'c1', amount: 15, currency: 'CLP', payment: 1, notify: true, retried: false },
  // The fee capped at the amount: the net, and so the pending settlement's delta, is zero.
  { order: 'c2', amount: 2, currency: 'CLP', payment: 1, notify: true, retried: false },
  { order: 'c3', amount: 250_001, currency: 'CLP', payment: 1, notify: false, retried: true },
  { order: 'c4', amount: 10_001, currency: 'PEN', payment: 25, notify: true, retried: false },
  // A method with no fee rule: a fee of zero, no fee journal.
  { order: 'c5', amount: 7_000, currency: 'CLP', payment: 4, notify: true, retried: false },
  { order: 'c6', amount: 99_999, currency: 'PEN', payment: 25, notify: false, retried: true },
];

async function feeRules(account: TestAccount): Promise<void> {
  const at = new Date('2026-01-01T00:00:00Z');
  await setFeeRule(t.ctx.db, account.id, 1, { percentBp: 295, fixedMinor: 3n }, at);
  await setFeeRule(t.ctx.db, account.id, 25, { percentBp: 3333, fixedMinor: 0n }, at);
}

function factsOf(account: TestAccount, id: string, attemptId: string, c: Case): AttemptFacts {
  return {
    transactionId: id,
    accountId: account.id,
    attemptId,
    method: { payment: c.payment, name: c.payment === 4 ? 'ETpay' : 'Tarjeta' },
    installments: 1,
    payerIdentifier: c.payment === 4 ? '11.111.111-1' : null,
    payerBank: c.payment === 4 ? 'Banco de Chile' : null,
    payerIp: '127.0.0.1',
  };
}

async function claim(account: TestAccount, id: string, attemptId: string): Promise<TransactionRow> {
  const claimed = await claimAttempt(t.ctx, {
    transactionId: id,
    accountId: account.id,
    attemptId,
    leaseMs: 60_000,
  });
  if (claimed.kind !== 'claimed') throw new Error(`not claimed: ${claimed.kind}`);
  return claimed.row;
}

/** Creates the round's checkouts and claims each for its approved attempt (a retried one declined first). */
async function claimedRound(account: TestAccount, round: number): Promise<ApprovedPayment[]> {
  const payments: ApprovedPayment[] = [];
  for (const c of cases) {
    const made = await createTransaction(t, account, {
      order: `${c.order}-${round}`,
      amount: c.amount,
      currency: c.currency,
      ...(c.notify ? { urlnotify: 'https://merchant.example/notify' } : {}),
    });
    if (c.retried) {
      const first = `att_${account.id}_${c.order}_${round}_declined`;
      await claim(account, made.id, first);
      const answer = await recordOutcome(t.ctx, factsOf(account, made.id, first, c), declined);
      expect(answer.kind).toBe('declined');
    }
    const attemptId = `att_${account.id}_${c.order}_${round}`;
    const claimed = await claim(account, made.id, attemptId);
    payments.push({ facts: factsOf(account, made.id, attemptId, c), outcome: approved, claimed });
  }
  return payments;
}

/** Every id and key of one merchant's rows replaced by a label that is the same for both merchants. */
async function labeller(account: TestAccount): Promise<(value: unknown) => unknown> {
  const { rows } = await sql<{
    id: string;
    order: string;
    payment_key: string;
    transaction_key: string;
    verification_key: string;
    number: string;
  }>`SELECT id, "order", payment_key, transaction_key, verification_key, number::text AS number
    FROM transactions WHERE account_id = ${account.id}`.execute(t.ctx.db);
  const labels = new Map<string, string>([[account.id, 'ACCOUNT']]);
  for (const r of rows) {
    labels.set(r.id, `TX:${r.order}`);
    labels.set(r.payment_key, `PK:${r.order}`);
    labels.set(r.transaction_key, `TK:${r.order}`);
    labels.set(r.verification_key, `VK:${r.order}`);
    labels.set(r.number, `N:${r.order}`);
  }
  const ids = [...labels.keys()].sort((a, b) => b.length - a.length);
  const replace = (text: string): string => {
    let out = text;
    for (const id of ids) out = out.split(id).join(labels.get(id)!);
    return out;
  };
  const label = (value: unknown): unknown => {
    if (value instanceof Date) return `date:${value.toISOString()}`;
    if (typeof value === 'bigint') return `int:${value}`;
    if (typeof value === 'number') return `int:${value}`;
    if (typeof value === 'string') return replace(value);
    if (Array.isArray(value)) return value.map(label);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, label(v)]));
    return value;
  };
  return label;
}

/** What one merchant's successes left, labelled: comparable with another merchant's. */
async function leftBy(account: TestAccount) {
  const label = await labeller(account);
  const db = t.ctx.db;
  const txs = await sql<Record<string, unknown>>`
    SELECT * FROM transactions WHERE account_id = ${account.id} ORDER BY "order"`.execute(db);
  const attempts = await sql<Record<string, unknown>>`
    SELECT p.* FROM payment_attempts p JOIN transactions t ON t.id = p.transaction_id
    WHERE t.account_id = ${account.id} ORDER BY t."order", p.number`.execute(db);
  const callbacks = await sql<Record<string, unknown>>`
    SELECT n.*, n.payload::text AS payload FROM notifications n WHERE n.account_id = ${account.id}
    ORDER BY n.payload->>'order'`.execute(db);
  const postings = await sql<Record<string, unknown>>`
    SELECT j.kind, j.reference, j.memo, j.created_at, a.owner, a.code, a.currency AS account_currency,
      a.non_negative, p.currency, p.amount_minor::text AS amount_minor,
      p.balance_after_minor::text AS balance_after_minor
    FROM journal_entries j JOIN postings p ON p.journal_id = j.id JOIN ledger_accounts a ON a.id = p.ledger_account_id
    WHERE j.reference IN (SELECT id FROM transactions WHERE account_id = ${account.id})
    ORDER BY p.id`.execute(db);
  const journals = await sql<{ n: string }>`
    SELECT count(DISTINCT j.id)::text AS n FROM journal_entries j
    WHERE j.reference IN (SELECT id FROM transactions WHERE account_id = ${account.id})`.execute(
    db,
  );
  const accounts = await sql<Record<string, unknown>>`
    SELECT owner, code, currency, balance_minor::text AS balance_minor, non_negative FROM ledger_accounts
    WHERE owner = ${account.id} ORDER BY code, currency`.execute(db);
  const strip = (r: Record<string, unknown>) => {
    const { id: _id, ...rest } = r;
    return rest;
  };
  return label({
    // `number` is the service's sequence, different by construction; the callbacks' bodies carry it labelled.
    transactions: txs.rows.map(({ number: _number, ...rest }) => rest),
    attempts: attempts.rows.map(strip),
    callbacks: callbacks.rows.map(strip),
    postings: postings.rows,
    journals: journals.rows[0]!.n,
    accounts: accounts.rows,
  }) as Record<string, unknown>;
}

describe('decision 730: the function and the TypeScript path record the same success', () => {
  it('leaves the same rows, attempts, callbacks, journals, postings and accounts, and answers the same rows', async () => {
    const byFunction = await t.createAccount();
    const byTypeScript = await t.createAccount();
    await feeRules(byFunction);
    await feeRules(byTypeScript);
    const answersF: AttemptOutcome[] = [];
    const answersT: AttemptOutcome[] = [];
    for (const round of [1, 2]) {
      const groupF = await claimedRound(byFunction, round);
      const groupT = await claimedRound(byTypeScript, round);
      answersF.push(...(await recordSuccesses(t.ctx, byFunction.id, groupF)));
      for (const p of groupT) answersT.push(await recordOutcome(t.ctx, p.facts, p.outcome));
    }
    expect(answersF.map((a) => a.kind)).toEqual(answersT.map(() => 'approved'));
    expect(answersT.map((a) => a.kind)).toEqual(answersT.map(() => 'approved'));

    const leftF = await leftBy(byFunction);
    const leftT = await leftBy(byTypeScript);
    for (const part of Object.keys(leftT))
      expect({ [part]: leftF[part] }).toEqual({ [part]: leftT[part] });
    // Every case leaves its capture, and a fee where there is one (c5: no rule; the rest have one).
    expect((leftT.callbacks as unknown[]).length).toBe(8);
    expect((leftT.attempts as unknown[]).length).toBe(2 * cases.length + 4);
    expect(leftT.journals).toBe(`${2 * cases.length + 2 * (cases.length - 1)}`);

    // The rows each path answers (the result page shows them without reading them again): same values, same types.
    const labelF = await labeller(byFunction);
    const labelT = await labeller(byTypeScript);
    const paid = (a: AttemptOutcome) => {
      if (a.kind !== 'approved') return null;
      const { number: _number, ...rest } = a.paid;
      return rest;
    };
    expect(answersF.map((a) => labelF(paid(a)))).toEqual(answersT.map((a) => labelT(paid(a))));
    const types = (a: AttemptOutcome) =>
      Object.entries(paid(a) ?? {}).map(
        ([k, v]) => `${k}:${v instanceof Date ? 'date' : typeof v}`,
      );
    expect(answersF.map(types)).toEqual(answersT.map(types));
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('pays a payment given twice in one group once, and answers it paid both times', async () => {
    const account = await t.createAccount();
    await feeRules(account);
    const [payment] = await claimedRound(account, 9);
    const answers = await recordSuccesses(t.ctx, account.id, [payment!, payment!]);
    expect(answers.map((a) => a.kind)).toEqual(['approved', 'approved']);
    const left = await leftBy(account);
    // Its one approved attempt, and the declines of the round's two retried checkouts (still pending).
    expect((left.attempts as unknown[]).length).toBe(3);
    expect(left.journals).toBe('2');
    expect((left.callbacks as unknown[]).length).toBe(1);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('refuses a group holding another merchant’s row whole: nothing of the group is written', async () => {
    const mine = await t.createAccount();
    const theirs = await t.createAccount();
    const [ok] = await claimedRound(mine, 10);
    const [foreign] = await claimedRound(theirs, 10);
    const smuggled = { ...foreign!, facts: { ...foreign!.facts, accountId: mine.id } };
    await expect(recordSuccesses(t.ctx, mine.id, [ok!, smuggled])).rejects.toThrow(
      /not a plain payment of account/,
    );
    const { rows } = await sql<{ status: string }>`
      SELECT status FROM transactions WHERE id IN (${ok!.facts.transactionId}, ${foreign!.facts.transactionId})`.execute(
      t.ctx.db,
    );
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending']);
    expect((await leftBy(mine)).journals).toBe('0');
  });
});

// Group commit of payments' successes (decision 615): approved payments of one account that arrive together are
// recorded by one transaction. Proven through the checkout on both engines: concurrent payments share transactions
// (the rows' xmin) and every one is paid once with its money and its callback; a group that fails on one row
// records each payment again alone, so only that payer sees the failure; a payment whose claim was lost answers the
// row's status inside a group and writes nothing, and one recorded again by its own attempt answers paid; a group
// whose connection is cut records each payment again alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  sql,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createTransaction, submit, approvedVisa } from './helpers.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { ledgerCodes } from '../../../src/platform/ledger/ledger.ts';
import { claimAttempt } from '../../../src/modules/transactions/attempt-claim.ts';
import { recordSuccessGrouped } from '../../../src/modules/transactions/success-group-commit.ts';
import {
  recordOutcome,
  type AttemptFacts,
} from '../../../src/modules/transactions/attempt-outcome.ts';
import type { TransactionRow } from '../../../src/modules/transactions/repository.ts';

/**
 * Cuts the connection under the next group's success statement (the one that answers several rows `success`), as
 * node-postgres reports a connection the server closed: no SQLSTATE, "Connection terminated unexpectedly".
 */
class CutNextGroupSuccess implements KyselyPlugin {
  armed = false;
  cut = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const rows = args.result.rows as { status?: unknown }[];
    if (this.armed && rows.length > 1 && rows.every((r) => r.status === 'success')) {
      this.armed = false;
      this.cut++;
      throw new Error('Connection terminated unexpectedly');
    }
    return args.result;
  }
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function rowsOf(accountId: string) {
  const { rows } = await sql<{
    id: string;
    order: string;
    status: string;
    amount_minor: string;
    fee_minor: string | null;
    writer: string;
  }>`
    SELECT id, "order", status, amount_minor::text AS amount_minor, fee_minor::text AS fee_minor,
      xmin::text AS writer
    FROM transactions WHERE account_id = ${accountId} ORDER BY "order"`.execute(t.ctx.db);
  return rows;
}

async function callbacksOf(accountId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM notifications WHERE account_id = ${accountId}`.execute(
    t.ctx.db,
  );
  return Number(rows[0]!.n);
}

async function checkouts(account: TestAccount, orders: readonly string[], app: TestApp = t) {
  const made = [];
  for (const order of orders)
    made.push(
      await createTransaction(app, account, {
        order,
        amount: 10_000,
        urlnotify: 'https://merchant.example/notify',
      }),
    );
  return made;
}

describe("group commit of payments' successes", () => {
  it("records one account's concurrent payments in shared transactions, each paid once with its money and callback", async () => {
    const account = await t.createAccount();
    const orders = Array.from({ length: 8 }, (_, i) => `g-${i}`);
    const made = await checkouts(account, orders);
    const pages = await Promise.all(made.map((m) => submit(t, m.url, 1, approvedVisa)));
    expect(pages.map((p) => p.statusCode)).toEqual(made.map(() => 200));

    const rows = await rowsOf(account.id);
    expect(rows.map((r) => r.status)).toEqual(orders.map(() => 'success'));
    // Grouped: fewer writing transactions than payments (the first is written at once, alone).
    expect(new Set(rows.map((r) => r.writer)).size).toBeLessThan(rows.length);
    const netMinor = rows.reduce(
      (sum, r) => sum + BigInt(r.amount_minor) - BigInt(r.fee_minor ?? '0'),
      0n,
    );
    expect(
      await t.ctx.ledger.balance(t.ctx.db, {
        owner: account.id,
        code: ledgerCodes.pendingSettlement,
        currency: 'CLP',
      }),
    ).toBe(netMinor);
    // A capture (and a fee) for each payment, once.
    const { rows: journals } = await sql<{ reference: string; captures: string }>`
      SELECT reference, count(*) FILTER (WHERE kind = 'transaction.capture')::text AS captures
      FROM journal_entries WHERE reference = ANY(${rows.map((r) => r.id)}) GROUP BY reference`.execute(
      t.ctx.db,
    );
    expect(journals.map((j) => j.captures)).toEqual(rows.map(() => '1'));
    expect(await callbacksOf(account.id)).toBe(rows.length);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('records each payment of a group again alone when one row fails, so only that payer sees it', async () => {
    const account = await t.createAccount();
    const orders = ['f-0', 'f-1', 'f-2', 'f-3', 'f-4', 'f-5'];
    const made = await checkouts(account, orders);
    // A row failure (SQLSTATE P0001) on one payment's success, as a trigger or a constraint raises it.
    await sql
      .raw(
        `CREATE FUNCTION refuse_poisoned_success() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.status = 'success' AND NEW."order" = 'f-3' THEN RAISE EXCEPTION 'poisoned row'; END IF;
           RETURN NEW;
         END $$`,
      )
      .execute(t.ctx.db);
    await sql
      .raw(
        `CREATE TRIGGER refuse_poisoned_success BEFORE UPDATE ON transactions
         FOR EACH ROW EXECUTE FUNCTION refuse_poisoned_success()`,
      )
      .execute(t.ctx.db);
    try {
      const pages = await Promise.all(made.map((m) => submit(t, m.url, 1, approvedVisa)));
      expect(pages[3]!.statusCode).toBe(500);
      expect(pages.filter((p) => p.statusCode === 200)).toHaveLength(5);
    } finally {
      await sql.raw('DROP TRIGGER refuse_poisoned_success ON transactions').execute(t.ctx.db);
      await sql.raw('DROP FUNCTION refuse_poisoned_success()').execute(t.ctx.db);
    }
    const rows = await rowsOf(account.id);
    expect(rows.map((r) => r.status)).toEqual([
      'success',
      'success',
      'success',
      'pending',
      'success',
      'success',
    ]);
    expect(await callbacksOf(account.id)).toBe(5);
    const { rows: journals } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM journal_entries WHERE reference = ${rows[3]!.id}`.execute(
      t.ctx.db,
    );
    expect(journals[0]!.n).toBe('0');
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('answers a payment whose claim was lost with the row as it is, inside a group, and writes nothing for it', async () => {
    const account = await t.createAccount();
    const made = await checkouts(account, ['c-0', 'c-1', 'c-2']);
    const method = { payment: 1, name: 'Tarjeta' };
    const facts: AttemptFacts[] = [];
    const claimedRows: TransactionRow[] = [];
    for (const [i, m] of made.entries()) {
      const attemptId = `att_grouptest_${i}`;
      const claim = await claimAttempt(t.ctx, {
        transactionId: m.id,
        accountId: account.id,
        attemptId,
        leaseMs: 60_000,
      });
      expect(claim.kind).toBe('claimed');
      if (claim.kind === 'claimed') claimedRows.push(claim.row);
      facts.push({
        transactionId: m.id,
        accountId: account.id,
        // The second's claim is another attempt's: this one lost it.
        attemptId: i === 1 ? 'att_grouptest_lost' : attemptId,
        method,
        installments: 1,
        payerIdentifier: null,
        payerBank: null,
        payerIp: '127.0.0.1',
      });
    }
    const approved = {
      approved: true as const,
      authorizationCode: '123456',
      cardType: 'VN',
      cardBrand: 'Visa',
      cardLast4: '6623',
      cardToken: null,
    };
    // On PostgreSQL the first is written at once, alone, and the two that queue meanwhile are one group; on PGlite
    // the three are one group (its gathering turn). Either way the lost claim is recorded inside a group.
    const answers = await Promise.all(
      facts.map((f, i) => recordSuccessGrouped(t.ctx, f, approved, claimedRows[i]!)),
    );
    expect(answers.map((a) => a.kind)).toEqual(['approved', 'final', 'approved']);
    expect(answers[1]).toEqual({ kind: 'final', status: 'pending' });
    const rows = await rowsOf(account.id);
    expect(rows.map((r) => r.status)).toEqual(['success', 'pending', 'success']);
    expect(await callbacksOf(account.id)).toBe(2);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });

    // Recorded again by the same attempt (as after a group's commit whose answer was lost): answered paid, nothing
    // written a second time.
    const again = await recordOutcome(t.ctx, facts[0]!, approved);
    expect(again.kind).toBe('approved');
    expect(again.kind === 'approved' && again.paid.id).toBe(made[0]!.id);
    expect(await callbacksOf(account.id)).toBe(2);
    const { rows: captures } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM journal_entries
      WHERE reference = ${made[0]!.id} AND kind = 'transaction.capture'`.execute(t.ctx.db);
    expect(captures[0]!.n).toBe('1');
  });

  it("records each payment again alone when the group's connection is cut, so every payer is paid once", async () => {
    const cutter = new CutNextGroupSuccess();
    const cut = await startTestApp({ sharing: t, dbPlugin: cutter });
    try {
      const account = await cut.createAccount();
      const orders = ['k-0', 'k-1', 'k-2', 'k-3', 'k-4', 'k-5'];
      const made = await checkouts(account, orders, cut);
      cutter.armed = true;
      const pages = await Promise.all(made.map((m) => submit(cut, m.url, 1, approvedVisa)));
      expect(cutter.cut).toBe(1);
      expect(pages.map((p) => p.statusCode)).toEqual(made.map(() => 200));
      const rows = await rowsOf(account.id);
      expect(rows.map((r) => r.status)).toEqual(orders.map(() => 'success'));
      expect(await callbacksOf(account.id)).toBe(orders.length);
      expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
    } finally {
      await cut.close();
    }
  });
});

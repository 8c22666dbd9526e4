// Group commit of creates (decision 400): keyless creates that arrive together are written by one statement, one
// row each. Proven through HTTP on both engines: they share transactions (the rows' xmin), every answer names its
// own row with its own values, keyed creates run beside them, a row whose write fails fails alone, and the
// statement stamps each row with its own account's sandbox time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { advanceAccountClock } from '../../../src/platform/sandbox-clock.ts';
import { insertTransactions, type NewTransaction } from '../../../src/modules/transactions/transaction-insert.ts';
import { queuedCreatesOf } from '../../../src/modules/transactions/create-group-commit.ts';
import { newId } from '../../../src/platform/ids.ts';
import { runSql } from '../../../src/platform/db/run-sql.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount('Tienda en grupo');
});
afterAll(async () => { await t.close(); });

const bodyOf = (i: number) => ({ email: `payer${i}@example.com`, order: `grp-${i}`, subject: `Compra ${i}`, amount: 1000 + i });

async function rowsOf(accountId: string) {
  const { rows } = await sql<{ id: string; email: string; order: string; subject: string; amount_minor: string; writer: string; created_at: Date }>`
    SELECT id, email, "order", subject, amount_minor::text AS amount_minor, xmin::text AS writer, created_at
    FROM transactions WHERE account_id = ${accountId}`.execute(t.ctx.db);
  return rows;
}

describe('create group commit', () => {
  it('writes creates that arrive together in fewer transactions, each answered with its own row', async () => {
    const a = await t.createAccount('Tienda concurrente');
    const count = 24;
    const answers = await Promise.all(Array.from({ length: count }, (_, i) =>
      t.call(a, { method: 'POST', url: '/api/transaction', body: bodyOf(i) })));
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    const ids = answers.map((res) => res.json().id as string);
    expect(new Set(ids).size).toBe(count);
    const rows = await rowsOf(a.id);
    expect(rows).toHaveLength(count);
    const byId = new Map(rows.map((row) => [row.id, row]));
    ids.forEach((id, i) => {
      const row = byId.get(id)!;
      expect({ email: row.email, order: row.order, subject: row.subject, amount: row.amount_minor })
        .toEqual({ email: `payer${i}@example.com`, order: `grp-${i}`, subject: `Compra ${i}`, amount: String(1000 + i) });
      expect(row.created_at.getTime()).toBe(t.clock.now().getTime());
    });
    // Rows written by one statement share its transaction id.
    expect(new Set(rows.map((row) => row.writer)).size).toBeLessThan(count);
    expect(queuedCreatesOf(t.ctx)).toBe(0);
    for (const id of [ids[0]!, ids[count - 1]!]) {
      const got = await t.call(a, { method: 'GET', url: `/api/transaction/${id}` });
      expect(got.statusCode, got.body).toBe(200);
    }
  });

  it('runs creates with an Idempotency-Key in their own transaction beside the groups', async () => {
    const a = await t.createAccount('Tienda con llaves');
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => t.call(a, {
      method: 'POST', url: '/api/transaction', body: bodyOf(i),
      ...(i % 3 === 0 ? { headers: { 'idempotency-key': `key-${i}` } } : {}),
    })));
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    expect(await rowsOf(a.id)).toHaveLength(16);
    // The key's answer is stored with its row: the same request again gets the same transaction.
    const again = await t.call(a, { method: 'POST', url: '/api/transaction', body: bodyOf(3), headers: { 'idempotency-key': 'key-3' } });
    expect(again.json().id).toBe(answers[3]!.json().id);
    expect(await rowsOf(a.id)).toHaveLength(16);
  });

  it('fails only the create whose row cannot be written; the others of its group are written', async () => {
    const a = await t.createAccount('Tienda envenenada');
    await runSql(t.ctx.db, `
      CREATE FUNCTION test_poison_create() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW."order" = 'grp-poison' THEN RAISE EXCEPTION 'poisoned create'; END IF; RETURN NEW; END $$`);
    await runSql(t.ctx.db, 'CREATE TRIGGER test_poison_create BEFORE INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION test_poison_create()');
    try {
      const bodies = Array.from({ length: 12 }, (_, i) => (i === 5 ? { ...bodyOf(i), order: 'grp-poison' } : bodyOf(i)));
      const answers = await Promise.all(bodies.map((body) => t.call(a, { method: 'POST', url: '/api/transaction', body })));
      answers.forEach((res, i) => expect(res.statusCode, res.body).toBe(i === 5 ? 500 : 200));
      const rows = await rowsOf(a.id);
      expect(rows.map((row) => row.order).sort()).toEqual(bodies.filter((_, i) => i !== 5).map((b) => b.order).sort());
      expect(rows.map((row) => row.id).sort()).toEqual(answers.filter((_, i) => i !== 5).map((res) => res.json().id).sort());
    } finally {
      await runSql(t.ctx.db, 'DROP TRIGGER test_poison_create ON transactions');
      await runSql(t.ctx.db, 'DROP FUNCTION test_poison_create()');
    }
  });

  it('stamps each row of one statement with its own account\'s sandbox time when the statement computes it', async () => {
    const moved = await t.createAccount('Tienda adelantada');
    const offsetMs = 2 * 86_400_000 + 789;
    expect(await advanceAccountClock(t.ctx, moved.id, offsetMs)).toBe(offsetMs);
    const given = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    const rowOf = (accountId: string, order: string, createdAt: Date | null, additional: string | null): NewTransaction => ({
      id: newId('trx', 17), accountId, email: 'payer@example.com', order, subject: 'S', amountMinor: 1500n, currency: 'CLP',
      payment: order === 'given' ? 1 : null, expiresAt: null, urlreturn: null, urlnotify: null, additionalParametersJson: additional,
      marketplace: null, membershipId: null, eventId: null, paymentKey: newId('pr', 17),
      transactionKey: String(2_000_000_000_000_000 + Math.floor(Math.random() * 1e9)), verificationKey: 'ab', createdAt,
    });
    const rows = [rowOf(moved.id, 'computed-moved', null, '{"order_ext":"x1"}'), rowOf(account.id, 'computed-plain', null, null), rowOf(moved.id, 'given', given, null)];
    await insertTransactions(t.ctx, t.ctx.db, rows);
    const written = await t.ctx.db.selectFrom('transactions').select(['order', 'created_at', 'updated_at', 'payment', 'additional_parameters'])
      .where('id', 'in', rows.map((r) => r.id)).execute();
    const at = Object.fromEntries(written.map((w) => [w.order, w]));
    const now = t.clock.now().getTime();
    expect(at['computed-moved']!.created_at.getTime()).toBe(now + offsetMs);
    expect(at['computed-moved']!.updated_at.getTime()).toBe(now + offsetMs);
    expect(at['computed-moved']!.additional_parameters).toEqual({ order_ext: 'x1' });
    expect(at['computed-plain']!.created_at.getTime()).toBe(now);
    expect(at['given']!.created_at.getTime()).toBe(given.getTime());
    expect(at['given']!.payment).toBe(1);
  });
});

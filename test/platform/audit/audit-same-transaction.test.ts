// Issue 36: a change and its audit row commit together (decisions 565, 566). A test trigger refuses the audit rows of
// one account's chain: a keyless create and a keyless payout (grouped, decision 470; alone and in a group of
// several), and an operator's command, then change nothing. Concurrent keyless creates and payouts of one account,
// written by group commits, leave one row each and a chain `cobro audit verify` accepts.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { verifyAudit } from '../../../src/platform/audit/verify.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { StatementCounter } from '../../support/statement-counter.ts';
import { balance, fund, payout } from '../../modules/wallet/wallet-helpers.ts';

const counter = new StatementCounter();
let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await startTestApp({ dbPlugin: counter });
  a = await t.createAccount();
  await fund(t, a, 100_000);
  // A first payout commits the ledger's system accounts: the ledger caches a derived account's id it reads in the
  // transaction that created it, which a rollback would leave dangling (reported, not this test's subject).
  expect((await payout(t, a, { order: 'warm' })).statusCode).toBe(200);
});
afterAll(async () => {
  await t.close();
});

/** Runs `work` while inserting an audit row of `chain` fails. */
async function auditRefused(chain: string, work: () => Promise<void>): Promise<void> {
  await sql
    .raw(
      `CREATE FUNCTION test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.chain = '${chain}' THEN RAISE EXCEPTION 'audit row refused by the test'; END IF; RETURN NEW; END $$`,
    )
    .execute(t.ctx.db);
  await sql
    .raw(
      'CREATE TRIGGER test_refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION test_refuse_audit()',
    )
    .execute(t.ctx.db);
  try {
    await work();
  } finally {
    await sql.raw('DROP TRIGGER test_refuse_audit ON audit_log').execute(t.ctx.db);
    await sql.raw('DROP FUNCTION test_refuse_audit()').execute(t.ctx.db);
  }
}

const create = (account: TestAccount, order: string) =>
  t.call(account, {
    method: 'POST',
    url: '/api/transaction/',
    body: { email: 'payer@example.com', order, subject: 'Compra', amount: 25_000 },
  });

const transactionsOf = (account: TestAccount, orders: readonly string[]) =>
  t.ctx.db
    .selectFrom('transactions')
    .select('id')
    .where('account_id', '=', account.id)
    .where('order', 'in', orders)
    .execute();

const payoutsOf = (account: TestAccount, orders: readonly string[]) =>
  t.ctx.db
    .selectFrom('payouts')
    .select('id')
    .where('account_id', '=', account.id)
    .where('order', 'in', orders)
    .execute();

const auditRowsOf = (account: TestAccount) =>
  t.ctx.db
    .selectFrom('audit_log')
    .selectAll()
    .where('chain', '=', account.id)
    .orderBy('seq')
    .execute();

describe('an audit row commits with its change', () => {
  it('a keyless create, alone and grouped, is not written when its audit row fails', async () => {
    const orders = ['rb-1', 'rb-2', 'rb-3', 'rb-4', 'rb-5'];
    await auditRefused(a.id, async () => {
      expect((await create(a, orders[0]!)).statusCode).toBe(500);
      const grouped = await Promise.all(orders.slice(1).map((o) => create(a, o)));
      expect(grouped.map((r) => r.statusCode)).toEqual([500, 500, 500, 500]);
    });
    expect(await transactionsOf(a, orders)).toEqual([]);
    expect((await create(a, 'rb-after')).statusCode).toBe(200);
  });

  it('a keyless payout, alone and grouped, is not written when its audit row fails', async () => {
    const before = await balance(t, a);
    const orders = ['rp-1', 'rp-2', 'rp-3', 'rp-4'];
    await auditRefused(a.id, async () => {
      expect((await payout(t, a, { order: orders[0] })).statusCode).toBe(500);
      const grouped = await Promise.all(orders.slice(1).map((order) => payout(t, a, { order })));
      expect(grouped.map((r) => r.statusCode)).toEqual([500, 500, 500]);
    });
    expect(await payoutsOf(a, orders)).toEqual([]);
    expect(await balance(t, a)).toBe(before);
  });

  it("an operator's command is not applied when its audit row fails", async () => {
    const before = await balance(t, a);
    const credit = ['wallet', 'credit', '--account', a.id, '--amount', '700', '--currency', 'CLP'];
    const keysOf = () =>
      t.ctx.db.selectFrom('api_keys').select('id').where('account_id', '=', a.id).execute();
    const keysBefore = await keysOf();
    await auditRefused(a.id, async () => {
      const refused = await dispatch([...credit, '--reason', 'refused', '--key', 'T-1'], t.ctx);
      expect(refused.exitCode).not.toBe(0);
      expect(refused.stderr).toMatch(/audit row refused by the test/);
      const key = ['keys', 'create', '--account', a.id, '--scope', 'read', '--name', 'refused'];
      expect((await dispatch(key, t.ctx)).exitCode).not.toBe(0);
    });
    expect(await balance(t, a)).toBe(before);
    expect(await keysOf()).toEqual(keysBefore);
    expect((await dispatch([...credit, '--reason', 'kept', '--key', 'T-2'], t.ctx)).exitCode).toBe(
      0,
    );
    expect(await balance(t, a)).toBe(before + 700);
    expect((await auditRowsOf(a)).at(-1)!.action).toBe('cobro wallet credit');
  });
});

describe('group commits leave a chain audit verify accepts', () => {
  it('one row each for concurrent keyless creates and payouts, chained in the groups they commit in', async () => {
    const b = await t.createAccount();
    await fund(t, b, 100_000);
    // Warm what a process learns once (the checkout link's key, the account's clock).
    expect((await create(b, 'gc-warm')).statusCode).toBe(200);
    counter.count = 0;
    const creates = await Promise.all(Array.from({ length: 16 }, (_, i) => create(b, `gc-${i}`)));
    expect(creates.map((r) => r.statusCode)).toEqual(creates.map(() => 200));
    // Grouped: alone, each create would be two statements (its insert, its audit row).
    expect(counter.count).toBeLessThan(2 * creates.length);
    const payouts = await Promise.all(
      Array.from({ length: 8 }, (_, i) => payout(t, b, { order: `gp-${i}` })),
    );
    expect(
      payouts.map((r) => r.statusCode),
      payouts[0]!.body,
    ).toEqual(payouts.map(() => 200));
    const rows = await auditRowsOf(b);
    const created = rows.filter((r) => r.action === 'POST /api/transaction');
    expect(created.map((r) => r.target).sort()).toEqual(
      [...creates.map((r) => r.json().id), created[0]!.target].sort(),
    );
    expect(new Set(created.map((r) => r.request_id)).size).toBe(creates.length + 1);
    const paid = rows.filter((r) => r.action === 'POST /api/wallet/payout');
    expect(paid.map((r) => r.target).sort()).toEqual(
      payouts.map((r) => r.json().identifier_payout).sort(),
    );
    expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => i + 1));
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
    const verified = await dispatch(['audit', 'verify'], t.ctx);
    expect(verified.exitCode, verified.stderr).toBe(0);
  });
});

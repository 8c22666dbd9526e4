// Due work run by two processes at once on PostgreSQL: the background worker of one server and a sandbox clock
// advance (or a second server) on another connection pool. Every business event must move its money once, and
// the handlers must not deadlock one another. PGlite has one connection, so these run on PostgreSQL only.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { approvedVisa, createTransaction, submit } from '../../modules/transactions/helpers.ts';
import { fund, payout } from '../../modules/wallet/wallet-helpers.ts';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import type { AppContext } from '../../../src/platform/context.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { runSettlements } from '../../../src/modules/transactions/settlement.ts';
import { resolveDuePayouts } from '../../../src/modules/wallet/payout-due-resolve.ts';
import { runEventPayouts } from '../../../src/modules/events/payouts.ts';
import { ledgerCodes } from '../../../src/platform/ledger/codes.ts';
import { lockLedgerAccounts, readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

describe.runIf(onPostgres)('due work from two connection pools at once (PostgreSQL)', () => {
  let t: TestApp;
  let second: DatabaseHandle;
  /** The same service on an independent pool: another process's view of the database. */
  let other: AppContext;

  beforeAll(async () => {
    t = await startTestApp();
    const url = (t.handle as { url?: string }).url;
    if (url === undefined) throw new Error('the PostgreSQL test database has no url');
    second = await openDatabase({ engine: 'postgres', url });
    other = { ...t.ctx, db: second.db };
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  async function payCard(account: TestAccount, body: Record<string, unknown>): Promise<string> {
    const created = await createTransaction(t, account, body);
    expect((await submit(t, created.url, 1, approvedVisa)).statusCode).toBe(200);
    return created.id;
  }

  const journalsOf = (kind: string, references: readonly string[]) =>
    t.ctx.db
      .selectFrom('journal_entries')
      .select(['reference'])
      .where('kind', '=', kind)
      .where('reference', 'in', references)
      .execute();

  it('settles each paid transaction once when two processes run the settlement handler together', async () => {
    const a = await t.createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await payCard(a, { order: `s-${i}`, amount: 1000 + i }));
    const runs = await Promise.all([
      runSettlements(t.ctx, { limit: 200 }),
      runSettlements(other, { limit: 200 }),
      drainDueWork(t.ctx, a.id),
      drainDueWork(other),
    ]);
    const processed =
      (runs[0] as number) +
      (runs[1] as number) +
      ((runs[2] as Record<string, number>)['transaction-settlement'] ?? 0) +
      ((runs[3] as Record<string, number>)['transaction-settlement'] ?? 0);
    expect(processed).toBe(ids.length);
    // One settlement movement a sale (a chunk's sales share their account's journal, decision 561).
    const settledOnce = await t.ctx.db
      .selectFrom('wallet_movements')
      .select('reference')
      .where('kind', '=', 'settlement')
      .where('reference', 'in', ids)
      .execute();
    expect(settledOnce.map((m) => m.reference).sort()).toEqual([...ids].sort());
    const expectedMinor = ids.reduce((sum, _id, i) => sum + BigInt(1000 + i), 0n);
    expect(
      await readBalance(t.ctx.db, {
        owner: a.id,
        code: ledgerCodes.walletAvailable,
        currency: 'CLP',
      }),
    ).toBe(expectedMinor);
    expect(
      await readBalance(t.ctx.db, {
        owner: a.id,
        code: ledgerCodes.pendingSettlement,
        currency: 'CLP',
      }),
    ).toBe(0n);
    const movements = await t.ctx.db
      .selectFrom('wallet_movements')
      .select(['amount_minor', 'balance_after_minor'])
      .where('account_id', '=', a.id)
      .orderBy('seq')
      .execute();
    expect(movements).toHaveLength(ids.length);
    let running = 0n;
    for (const m of movements) {
      running += m.amount_minor;
      expect(m.balance_after_minor).toBe(running);
    }
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('moves each sandbox payout to success once when two processes resolve payouts together', async () => {
    const a = await t.createAccount();
    await fund(t, a, 100_000);
    const orders = ['p-1', 'p-2', 'p-3', 'p-4', 'p-5'];
    for (const order of orders)
      expect((await payout(t, a, { order, amount: 4_321 })).json().status).toBe('success');
    await t.ctx.accountClock.advance(a.id, 2 * 60 * 60 * 1000, t.ctx.db);
    for (let round = 0; round < 2; round++) {
      await Promise.all([
        resolveDuePayouts(t.ctx, { limit: 200 }),
        resolveDuePayouts(other, { limit: 200 }),
        drainDueWork(other, a.id),
      ]);
    }
    const rows = await t.ctx.db
      .selectFrom('payouts')
      .select(['id', 'status'])
      .where('account_id', '=', a.id)
      .execute();
    expect(rows.map((r) => r.status)).toEqual(orders.map(() => 'success'));
    expect(
      (
        await journalsOf(
          'payout.paid',
          rows.map((r) => r.id),
        )
      ).length,
    ).toBe(orders.length);
    expect(
      await readBalance(t.ctx.db, {
        owner: a.id,
        code: ledgerCodes.walletReserved,
        currency: 'CLP',
      }),
    ).toBe(0n);
    expect(
      await readBalance(t.ctx.db, {
        owner: a.id,
        code: ledgerCodes.walletAvailable,
        currency: 'CLP',
      }),
    ).toBe(100_000n - 5n * 4_321n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('settles an event sale while the event payout run holds the event, without a deadlock', async () => {
    const a = await t.createAccount('Productora');
    const event = {
      event: 'fest',
      name: 'Fest',
      date_event: '2026-03-20',
      date_closing_sales: '2026-03-19 23:59:00',
      date_payment: '2026-03-22',
      service_sale: 0,
      affiliation: [
        ['banda@example.com', 60],
        ['sonido@example.com', 40],
      ],
    };
    expect(
      (await t.call(a, { method: 'POST', url: '/api/event', body: event })).json().status,
    ).toBe('success');
    const sale = await payCard(a, { order: 'e-1', amount: 10_000, event: 'fest' });
    // Past date_payment without draining: the sale's settlement and the event's payout are both due now.
    await t.ctx.accountClock.advance(a.id, 15 * 24 * 60 * 60 * 1000, t.ctx.db);
    const eventRow = await t.ctx.db
      .selectFrom('events')
      .select(['id'])
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    const people = await t.ctx.db
      .selectFrom('event_beneficiaries')
      .select(['id'])
      .where('event_id', '=', eventRow.id)
      .orderBy('position')
      .execute();

    let settlement: Promise<number> | undefined;
    // The payout run's order (payouts.ts): claim the event, then lock each beneficiary's payable.
    await second.db.transaction().execute(async (tx) => {
      await tx
        .selectFrom('events')
        .select('id')
        .where('id', '=', eventRow.id)
        .forUpdate()
        .executeTakeFirstOrThrow();
      settlement = runSettlements(t.ctx, { accountId: a.id, limit: 10 });
      await waitForLockWait(t.ctx.db);
      for (const p of people)
        await lockLedgerAccounts(tx, [
          { owner: p.id, code: ledgerCodes.beneficiaryPayable, currency: 'CLP' },
        ]);
    });
    expect(await settlement).toBe(1);

    await runEventPayouts(other, { accountId: a.id, limit: 10 });
    expect((await journalsOf('event_sale_split', [sale])).length).toBe(1);
    const paid = await t.ctx.db
      .selectFrom('event_beneficiaries')
      .select(['paid_minor'])
      .where('event_id', '=', eventRow.id)
      .orderBy('position')
      .execute();
    expect(paid.map((p) => p.paid_minor)).toEqual([6_000n, 4_000n]);
    for (const p of people)
      expect(
        await readBalance(t.ctx.db, {
          owner: p.id,
          code: ledgerCodes.beneficiaryPayable,
          currency: 'CLP',
        }),
      ).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('settles an event sale while another sale of the event is being paid, without a deadlock', async () => {
    const a = await t.createAccount('Productora 2');
    const event = {
      event: 'fest-2',
      name: 'Fest 2',
      date_event: '2026-03-20',
      date_closing_sales: '2026-03-19 23:59:00',
      date_payment: '2026-03-22',
      affiliation: [['banda@example.com', 50]],
    };
    expect(
      (await t.call(a, { method: 'POST', url: '/api/event', body: event })).json().status,
    ).toBe('success');
    const sale = await payCard(a, { order: 'e-2', amount: 9_000, event: 'fest-2' });
    const eventRow = await t.ctx.db
      .selectFrom('events')
      .select(['id'])
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();

    let settlement: Promise<number> | undefined;
    // A second sale's payment (transaction-result.ts): the capture journal locks the merchant's pending
    // settlement, then recordEventSale locks the event.
    await second.db.transaction().execute(async (tx) => {
      await lockLedgerAccounts(tx, [
        { owner: a.id, code: ledgerCodes.pendingSettlement, currency: 'CLP' },
      ]);
      settlement = runSettlements(t.ctx, { accountId: a.id, limit: 10 });
      await waitForLockWait(t.ctx.db);
      await tx
        .selectFrom('events')
        .select('id')
        .where('id', '=', eventRow.id)
        .forUpdate()
        .executeTakeFirstOrThrow();
    });
    expect(await settlement).toBe(1);
    expect((await journalsOf('event_sale_split', [sale])).length).toBe(1);
    expect(
      await readBalance(t.ctx.db, {
        owner: a.id,
        code: ledgerCodes.walletAvailable,
        currency: 'CLP',
      }),
    ).toBe(4_500n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

/** Until some session of this database waits on a row lock (bounded). */
async function waitForLockWait(db: AppContext['db']): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await sql<{ n: string }>`SELECT COUNT(*)::text AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db);
    if (Number(r.rows[0]?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the settlement never waited for the event lock');
}

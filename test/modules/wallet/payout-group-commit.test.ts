// Group commit (decisions 220 and 280): keyless payouts that arrive while their lane's transaction runs are written
// together in its next one, under one lock statement and one commit, whether of one wallet or several. Proven here through HTTP: they are grouped (fewer locks
// than payouts), every answer is the one a payout alone would get, the balances follow each other, one payout
// whose row fails inside a group fails alone (the group is run again one by one), a fault that is no row's (an
// assertion) fails the whole group and is never run again, and on PostgreSQL an account whose row another
// connection holds stalls no other account's payouts (one lane an account, decision 430).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { verifyAudit } from '../../../src/platform/audit/verify.ts';
import assert from 'node:assert/strict';

import { balance, expectMovementChain, fund, payout } from './wallet-helpers.ts';

/**
 * Holds the write of one order until released, fails every write of another as one row's CHECK would (SQLSTATE
 * 23514), faults every write of a third as a broken assertion would, and counts lock statements.
 */
class Interceptor implements KyselyPlugin {
  holdOrder = '';
  poisonOrder = '';
  faultOrder = '';
  faultedWrites = 0;
  locks = 0;
  /** Statements that wrote payout rows. */
  writes = 0;
  /** Of those, the group statements that answered only the rows' ids (no payout of the group had an immediate outcome). */
  idOnlyWrites = 0;
  poisonedWrites = 0;
  #release!: () => void;
  #released!: Promise<void>;
  #reached!: () => void;
  holding!: Promise<void>;

  /** Holds the next write of `order`: `holding` resolves when it is reached, and it goes on at release(). */
  arm(order: string): void {
    this.holdOrder = order;
    this.#released = new Promise<void>((resolve) => {
      this.#release = resolve;
    });
    this.holding = new Promise<void>((resolve) => {
      this.#reached = resolve;
    });
  }

  release(): void {
    this.#release();
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const rows = args.result.rows as ReadonlyArray<{
      order?: unknown;
      movement_id?: unknown;
      code?: unknown;
      balance_minor?: unknown;
    }>;
    // The rows of a lock statement (post.ts lockLedgerAccounts): the accounts, each with its balance.
    if (rows[0] !== undefined && rows[0].code !== undefined && rows[0].balance_minor !== undefined)
      this.locks++;
    // The payout rows a write returns: one alone, one a payout in a group's statement (decision 330), or only
    // their ids when nothing of them is read after (decision 370).
    const idsOnly =
      rows.length > 0 &&
      rows.every(
        (row) =>
          Object.keys(row).length === 1 &&
          typeof (row as { id?: unknown }).id === 'string' &&
          (row as { id: string }).id.startsWith('mor'),
      );
    if (rows[0]?.movement_id !== undefined || idsOnly) this.writes++;
    if (idsOnly) this.idOnlyWrites++;
    for (const row of rows) {
      if (row.movement_id === undefined) continue;
      if (row.order === this.holdOrder) {
        this.#reached();
        await this.#released;
      }
      if (row.order === this.poisonOrder) {
        this.poisonedWrites++;
        throw Object.assign(new Error('poisoned write'), { code: '23514' });
      }
      if (row.order === this.faultOrder) {
        this.faultedWrites++;
        assert.fail('a group fault');
      }
    }
    return args.result;
  }
}

const interceptor = new Interceptor();
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ dbPlugin: interceptor });
});
afterAll(async () => {
  await t.close();
});

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

type Account = Awaited<ReturnType<TestApp['createAccount']>>;

/**
 * Sends a payout of order `held` and holds its write (inside its transaction, the wallet's lock taken), sends the
 * others once it is reached, and releases it once they all wait in the lane's queue behind it: nothing is read
 * before a payout queues (decision 260), on either engine.
 */
async function behindOneHeld(
  a: Account,
  held: string,
  heldMinor: number,
  queued: ReadonlyArray<{
    account?: Account;
    order: string;
    amount: number;
    currency?: string;
    accountbank_sbif?: string;
  }>,
) {
  // Each account's sandbox offset kept beforehand: read while the held transaction has PGlite's one connection, it
  // would wait for that transaction, before its payout queues.
  await t.ctx.accountClock.now(a.id, t.ctx.db, { kept: true });
  await until(() => t.ctx.changes!.live(), 10_000);
  for (const account of [a, ...queued.flatMap((p) => (p.account === undefined ? [] : [p.account]))])
    await t.ctx.accountClock.now(account.id, t.ctx.db, { kept: true });
  interceptor.arm(held);
  const first = payout(t, a, { order: held, amount: heldMinor });
  await interceptor.holding;
  const locksBefore = interceptor.locks;
  const writesBefore = interceptor.writes;
  const pending = queued.map(({ account, ...p }) => payout(t, account ?? a, p));
  await until(() => t.ctx.payoutGroups.queued >= queued.length, 10_000);
  expect(t.ctx.payoutGroups.queued).toBe(queued.length);
  interceptor.release();
  const firstAnswer = await first;
  expect(firstAnswer.statusCode, firstAnswer.body).toBe(200);
  const answers = await Promise.all(pending);
  return {
    answers,
    locks: interceptor.locks - locksBefore,
    writes: interceptor.writes - writesBefore,
  };
}

describe('payouts of one wallet in one group commit', () => {
  it("takes the wallet's lock once for the payouts that queued, and each one's balance follows the one before", async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    const orders = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8'];
    const { answers, locks, writes } = await behindOneHeld(
      a,
      'first',
      1000,
      orders.map((order) => ({ order, amount: 1000 })),
    );
    for (const r of answers) expect(r.json().status, r.body).toBe('success');
    // One lock statement and one write statement for the group: the held payout's own write counted before.
    expect(locks).toBe(1);
    expect(writes).toBe(1);
    expect(await balance(t, a)).toBe(1000);
    const movements = await t.ctx.db
      .selectFrom('wallet_movements')
      .select(['income_expense', 'amount_minor', 'balance_after_minor'])
      .where('account_id', '=', a.id)
      .orderBy('seq')
      .execute();
    expect(movements.map((m) => Number(m.balance_after_minor))).toEqual([
      10_000, 9000, 8000, 7000, 6000, 5000, 4000, 3000, 2000, 1000,
    ]);
  });

  it("groups payouts sent together without holding any, on either engine (PGlite: taken at the loop's next turn)", async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    await until(() => t.ctx.changes!.live(), 10_000);
    await t.ctx.accountClock.now(a.id, t.ctx.db, { kept: true });
    const writesBefore = interceptor.writes;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => payout(t, a, { order: `together-${i}`, amount: 1000 })),
    );
    for (const r of answers) expect(r.json().status, r.body).toBe('success');
    // On PGlite a statement runs on the event loop: without the gathering turn each payout would be its own group.
    expect(interceptor.writes - writesBefore).toBeLessThanOrEqual(2);
    expect(await balance(t, a)).toBe(2000);
    expect(await expectMovementChain(t, a.id)).toBe(2000);
  });

  it("writes payouts of an account's wallets in two currencies in one group, under one lock statement, each wallet exact", async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    await fund(t, a, 5000, 'PEN');
    // The third in PEN is refused for funds inside the group: 1000 is left.
    const queued = [
      ...['u-1', 'u-2', 'u-3'].map((order) => ({
        order,
        amount: 2000,
        currency: 'PEN',
        accountbank_sbif: '002',
      })),
      { order: 'a-1', amount: 3000 },
    ];
    const { answers, locks, writes } = await behindOneHeld(a, 'a-held', 1000, queued);
    const statuses = answers.map((r) => {
      expect(r.statusCode, r.body).toBe(200);
      return r.json().status === 'success' ? 'success' : r.json().type;
    });
    expect(statuses).toEqual(['success', 'success', 'insufficient_funds', 'success']);
    expect(locks).toBe(1);
    expect(writes).toBe(1);
    expect(await balance(t, a)).toBe(6000);
    expect(await balance(t, a, 'PEN')).toBe(1000);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  it("writes payouts of several accounts that queued behind a group in ONE shared group, each account's audit chain intact", async () => {
    const a = await t.createAccount();
    const others = [await t.createAccount(), await t.createAccount(), await t.createAccount()];
    // Each account's first payout creates its reserved ledger account, which a shared group never creates (an
    // account whose wallet rows are missing leaves it): made beforehand, so the group below keeps them all.
    for (const [i, account] of [a, ...others].entries()) {
      await fund(t, account, 5000);
      expect(
        (await payout(t, account, { order: `s-first-${i}`, amount: 1000 })).json().status,
      ).toBe('success');
    }
    const queued = others.flatMap((account, i) => [
      { account, order: `s-${i}-1`, amount: 1000 },
      { account, order: `s-${i}-2`, amount: 1000 },
    ]);
    const auditBefore = await t.ctx.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const { answers, locks, writes } = await behindOneHeld(a, 's-held', 1000, queued);
    for (const r of answers) expect(r.json().status, r.body).toBe('success');
    // Decision 590: one lock statement and one write for the three accounts' six payouts.
    expect(locks).toBe(1);
    expect(writes).toBe(1);
    for (const account of others) {
      expect(await balance(t, account)).toBe(2000);
      expect(await expectMovementChain(t, account.id)).toBe(2000);
    }
    const auditAfter = await t.ctx.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(auditAfter.n) - Number(auditBefore.n)).toBe(7);
    expect((await verifyAudit(t.ctx.db)).ok).toBe(true);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  it('answers only the ids of a group whose payouts all stay pending, and writes each row whole', async () => {
    const a = await t.createAccount();
    const amountMinor = 1234;
    await fund(t, a, amountMinor * 6);
    const orders = ['p1', 'p2', 'p3', 'p4', 'p5'];
    const idOnlyBefore = interceptor.idOnlyWrites;
    const { answers, locks, writes } = await behindOneHeld(
      a,
      'p-held',
      amountMinor,
      orders.map((order) => ({ order, amount: amountMinor })),
    );
    const bodies = answers.map((r) => {
      expect(r.statusCode, r.body).toBe(200);
      return r.json();
    });
    for (const b of bodies) expect(b.status).toBe('success');
    expect(locks).toBe(1);
    expect(writes).toBe(1);
    expect(interceptor.idOnlyWrites - idOnlyBefore).toBe(1);
    // Each answer names its own row, written whole: pending, its movement the one the answer gives.
    const rows = await t.ctx.db
      .selectFrom('payouts')
      .selectAll()
      .where('account_id', '=', a.id)
      .where('order', 'in', orders)
      .execute();
    expect(rows).toHaveLength(orders.length);
    for (const [i, order] of orders.entries()) {
      const row = rows.find((r) => r.order === order)!;
      expect(row.id).toBe(bodies[i].identifier_payout);
      expect(row.status).toBe('pending');
      expect(BigInt(row.amount_minor)).toBe(BigInt(amountMinor));
      expect(row.accountbank_num).toBe('12312312312');
      const movement = await t.ctx.db
        .selectFrom('wallet_movements')
        .selectAll()
        .where('id', '=', row.movement_id!)
        .executeTakeFirstOrThrow();
      expect([movement.reference, movement.order, movement.account_id]).toEqual([
        row.id,
        order,
        a.id,
      ]);
    }
    expect(await balance(t, a)).toBe(0);
    expect(await expectMovementChain(t, a.id)).toBe(0);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  it('groups the payouts that queued, answers each as alone, and runs a group again one by one when one fails', async () => {
    const a = await t.createAccount();
    const amountMinor = 1234;
    // The sandbox approves this amount at once, so the group's statement answers its rows (decision 370), where the
    // interceptor finds the poisoned order.
    const poisonMinor = 1000;
    // Funds for the first payout, six of the nine that queue behind it and the poisoned one; the two that ask for
    // ten times as much are refused.
    await fund(t, a, amountMinor * 7 + poisonMinor);
    interceptor.poisonOrder = 'poison';
    // The poisoned one is sent last, so it is never the one that finds the wallet free and runs alone.
    const orders = ['g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7', 'g8', 'poison'];
    const amountOf = (order: string) =>
      order === 'poison'
        ? poisonMinor
        : order === 'g7' || order === 'g8'
          ? amountMinor * 10
          : amountMinor;
    const { answers } = await behindOneHeld(
      a,
      'held',
      amountMinor,
      orders.map((order) => ({ order, amount: amountOf(order) })),
    );

    const poisoned = answers[orders.indexOf('poison')]!;
    expect(poisoned.statusCode, poisoned.body).toBe(500);
    // Written once in the group and once again alone.
    expect(interceptor.poisonedWrites).toBe(2);
    const others = answers
      .filter((_, i) => orders[i] !== 'poison')
      .map((r) => {
        expect(r.statusCode, r.body).toBe(200);
        return r.json();
      });
    expect(others.filter((b) => b.status === 'success')).toHaveLength(6);
    expect(others.filter((b) => b.status !== 'success').map((b) => b.type)).toEqual([
      'insufficient_funds',
      'insufficient_funds',
    ]);

    const rows = await t.ctx.db
      .selectFrom('payouts')
      .select(['order'])
      .where('account_id', '=', a.id)
      .execute();
    expect(rows.map((r) => r.order).sort()).toEqual(
      ['held', ...others.flatMap((b, i) => (b.status === 'success' ? [orders[i]!] : []))].sort(),
    );
    // The poisoned payout's amount is still available: nothing of it was written.
    expect(await balance(t, a)).toBe(poisonMinor);
    expect(await expectMovementChain(t, a.id)).toBe(poisonMinor);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });
  it("answers orders taken inside a group as alone: the group's statement fails and each payout runs again by itself", async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    const queued = [
      { order: 'd1', amount: 1000 },
      // The same order twice in one group: a retry with the same body, then one with another amount.
      { order: 'd1', amount: 1000 },
      { order: 'd1', amount: 2000 },
      // The held payout's order, committed before the group runs: its retry is answered with its payout.
      { order: 'taken', amount: 1000 },
      { order: 'd2', amount: 1000 },
    ];
    const { answers, writes } = await behindOneHeld(a, 'taken', 1000, queued);
    // The group's statement (failed on the taken order), then each payout alone: the three that write anything.
    expect(writes).toBeGreaterThanOrEqual(3);
    const bodies = answers.map((r) => {
      expect(r.statusCode, r.body).toBe(200);
      return r.json();
    });
    expect(bodies.map((b) => (b.status === 'success' ? 'success' : b.type))).toEqual([
      'success',
      'success',
      'duplicate_order',
      'success',
      'success',
    ]);
    expect(bodies[1].identifier_payout).toBe(bodies[0].identifier_payout);
    const rows = await t.ctx.db
      .selectFrom('payouts')
      .select(['id', 'order'])
      .where('account_id', '=', a.id)
      .execute();
    expect(rows.map((r) => r.order).sort()).toEqual(['d1', 'd2', 'taken']);
    expect(bodies[3].identifier_payout).toBe(rows.find((r) => r.order === 'taken')!.id);
    expect(await balance(t, a)).toBe(7000);
    expect(await expectMovementChain(t, a.id)).toBe(7000);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });

  it('fails every payout of a group on a fault no row causes (an assertion), runs none of them again, and writes none', async () => {
    const a = await t.createAccount();
    await fund(t, a, 10_000);
    interceptor.faultOrder = 'fault';
    try {
      // The sandbox approves 1000 at once, so the group's statement answers its rows, where the interceptor faults.
      const orders = ['f1', 'f2', 'fault', 'f3'];
      const { answers } = await behindOneHeld(
        a,
        'f-held',
        1000,
        orders.map((order) => ({ order, amount: 1000 })),
      );
      for (const r of answers) expect(r.statusCode, r.body).toBe(500);
      // Faulted once, in the group: never run again alone, where it would have been the only one to fail.
      expect(interceptor.faultedWrites).toBe(1);
      const rows = await t.ctx.db
        .selectFrom('payouts')
        .select('order')
        .where('account_id', '=', a.id)
        .execute();
      expect(rows.map((r) => r.order)).toEqual(['f-held']);
      expect(await balance(t, a)).toBe(9000);
      expect(await expectMovementChain(t, a.id)).toBe(9000);
      expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
    } finally {
      interceptor.faultOrder = '';
    }
  });

  // What another connection may hold of an account: the account row (its payout row's foreign key waits for it), a
  // wallet's ledger account (the funds check locks it) and the audit chain's head (cobro_audit_append locks it).
  const holds = [
    ['its account row', 'SELECT id FROM accounts WHERE id = $1 FOR UPDATE'],
    [
      "its wallet's ledger account",
      "SELECT id FROM ledger_accounts WHERE owner = $1 AND code = 'wallet_available' AND currency = 'CLP' FOR UPDATE",
    ],
    ['its audit chain head', 'SELECT chain FROM audit_heads WHERE chain = $1 FOR UPDATE'],
  ] as const;
  it.runIf(process.env.DATABASE_URL).each(holds)(
    "stalls no other account's payouts while another connection holds %s (PostgreSQL, decisions 430 and 590)",
    async (_what, holdSql) => {
      const held = await t.createAccount();
      const free = await t.createAccount();
      await fund(t, held, 10_000);
      await fund(t, free, 10_000);
      // A first payout each, so every row a shared group takes exists (it leaves out an account missing one).
      for (const account of [held, free])
        expect((await payout(t, account, { order: 'first' })).json().status).toBe('success');
      const pool = t.handle.pool;
      expect(pool).toBeDefined();
      const holder = await pool!.connect();
      try {
        await holder.query('BEGIN');
        expect((await holder.query(holdSql, [held.id])).rowCount).toBe(1);
        // The shared group skips the held row and sends the account's payouts to a lane of its own, where they
        // wait for the holder: the first, and the next one queued behind it in that lane.
        const waiting = [payout(t, held, { order: 'h-1' }), payout(t, held, { order: 'h-2' })];
        await new Promise((resolve) => setTimeout(resolve, 100));
        const answers = await Promise.all(
          Array.from({ length: 4 }, (_, i) => payout(t, free, { order: `free-${i}` })),
        );
        for (const r of answers) expect(r.json().status, r.body).toBe('success');
        await holder.query('COMMIT');
        for (const r of await Promise.all(waiting)) expect(r.json().status, r.body).toBe('success');
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        holder.release();
      }
      expect(await balance(t, free)).toBe(5000);
      expect(await balance(t, held)).toBe(7000);
      expect((await verifyAudit(t.ctx.db)).ok).toBe(true);
    },
  );
});

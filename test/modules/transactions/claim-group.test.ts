// Group commit of attempts' claims (decision 620): the claims of one account that arrive together are made by one
// call of cobro_claim_attempts (migrations 0440, 0450). Proven on both engines: concurrent claims share a statement (the
// rows' xmin) and each holds its own transaction; two claims of one transaction in one group leave it held by one
// attempt while the other answers in progress; a transaction that is not payable in a group answers why while
// the others are claimed; the production guard refuses a transaction whose acquirer commit is undecided.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { approvedVisa, createTransaction, submit } from './helpers.ts';
import { claimAttempt } from '../../../src/modules/transactions/attempt-claim.ts';
import { claimPayable } from '../../../src/modules/transactions/claim-statement.ts';
import { hasUndecidedSession } from '../../../src/platform/processors/account-processors.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function pendingCheckouts(account: TestAccount, count: number, prefix: string) {
  const made = [];
  for (let i = 0; i < count; i++)
    made.push(await createTransaction(t, account, { order: `${prefix}-${i}`, amount: 10_000 }));
  return made;
}

async function heldBy(ids: readonly string[]) {
  const { rows } = await sql<{ id: string; attempt_id: string | null; writer: string }>`
    SELECT id, attempt_id, xmin::text AS writer FROM transactions WHERE id = ANY(${ids}) ORDER BY id`.execute(
    t.ctx.db,
  );
  return rows;
}

const claimFor = (transactionId: string, accountId: string, attemptId: string) =>
  claimAttempt(t.ctx, { transactionId, accountId, attemptId, leaseMs: 60_000 });

describe("group commit of attempts' claims", () => {
  it("claims one account's concurrent attempts in shared statements, each transaction held by its own attempt", async () => {
    const account = await t.createAccount();
    const made = await pendingCheckouts(account, 8, 'g');
    const claims = await Promise.all(
      made.map((m, i) => claimFor(m.id, account.id, `att_claimgroup_${i}`)),
    );
    expect(claims.map((c) => c.kind)).toEqual(made.map(() => 'claimed'));
    const rows = await heldBy(made.map((m) => m.id));
    const attemptOf = new Map(made.map((m, i) => [m.id, `att_claimgroup_${i}`]));
    for (const row of rows) expect(row.attempt_id).toBe(attemptOf.get(row.id));
    // Grouped: fewer writing statements than claims (the first is made at once, alone).
    expect(new Set(rows.map((r) => r.writer)).size).toBeLessThan(rows.length);
  });

  it('leaves a transaction claimed twice in one group held by one attempt; the other answers in progress', async () => {
    const account = await t.createAccount();
    const [first, second] = await pendingCheckouts(account, 2, 'twice');
    // On PostgreSQL the first claim runs alone at once and the three behind it are one group; on PGlite the four
    // are one group (its gathering turn). Either way the second's three claims share one call.
    const claims = await Promise.all([
      claimFor(first!.id, account.id, 'att_twice_0'),
      claimFor(second!.id, account.id, 'att_twice_a'),
      claimFor(second!.id, account.id, 'att_twice_b'),
      claimFor(second!.id, account.id, 'att_twice_c'),
    ]);
    expect(claims[0]!.kind).toBe('claimed');
    expect(
      claims
        .slice(1)
        .map((c) => c.kind)
        .sort(),
    ).toEqual(['claimed', 'in_progress', 'in_progress']);
    const [row] = await heldBy([second!.id]);
    const winner = ['att_twice_a', 'att_twice_b', 'att_twice_c'][
      claims.slice(1).findIndex((c) => c.kind === 'claimed')
    ];
    expect(row!.attempt_id).toBe(winner);
  });

  it('answers why a transaction in a group cannot be claimed while the others are', async () => {
    const account = await t.createAccount();
    const made = await pendingCheckouts(account, 4, 'mixed');
    const paid = await submit(t, made[2]!.url, 1, approvedVisa);
    expect(paid.statusCode).toBe(200);
    const claims = await Promise.all(
      made.map((m, i) => claimFor(m.id, account.id, `att_mixed_${i}`)),
    );
    expect(claims.map((c) => c.kind)).toEqual(['claimed', 'claimed', 'final', 'claimed']);
    expect(claims[2]).toEqual({ kind: 'final', status: 'success' });
  });

  it('claims by one call: the same transaction twice holds it once; the production guard refuses an undecided commit', async () => {
    const account = await t.createAccount();
    const [free, committing, twice] = await pendingCheckouts(account, 3, 'call');
    const now = await t.ctx.accountClock.now(account.id, t.ctx.db);
    await t.ctx.db
      .insertInto('processor_sessions')
      .values({
        attempt_id: 'att_call_session',
        transaction_id: committing!.id,
        account_id: account.id,
        processor: 'webpay',
        token: 'tok_call_session',
        state: 'committing',
        created_at: now,
        updated_at: now,
      })
      .execute();
    const leaseUntil = new Date(now.getTime() + 60_000);
    const rows = await claimPayable(
      t.ctx.db,
      { accountId: account.id, now, guardUndecided: true },
      [
        { transactionId: free!.id, attemptId: 'att_call_free', leaseUntil },
        { transactionId: committing!.id, attemptId: 'att_call_committing', leaseUntil },
        { transactionId: twice!.id, attemptId: 'att_call_twice_a', leaseUntil },
        { transactionId: twice!.id, attemptId: 'att_call_twice_b', leaseUntil },
      ],
    );
    expect(rows.map((r) => r?.id)).toEqual([free!.id, undefined, twice!.id, undefined]);
    expect(rows[0]!.attempt_id).toBe('att_call_free');
    // Without the guard (sandbox) the undecided session does not hold it.
    const [unguarded] = await claimPayable(
      t.ctx.db,
      { accountId: account.id, now, guardUndecided: false },
      [{ transactionId: committing!.id, attemptId: 'att_call_unguarded', leaseUntil }],
    );
    expect(unguarded?.attempt_id).toBe('att_call_unguarded');
    // Another account's transaction is never claimed.
    const other = await t.createAccount();
    const [foreign] = await claimPayable(
      t.ctx.db,
      { accountId: other.id, now, guardUndecided: false },
      [{ transactionId: free!.id, attemptId: 'att_call_foreign', leaseUntil }],
    );
    expect(foreign).toBeUndefined();
  });

  it("a redirected session holds its sale when its processor said so (holds_sale), whatever the processor's name (decision 725)", async () => {
    const account = await t.createAccount();
    const [marked, unmarked] = await pendingCheckouts(account, 2, 'holds');
    const now = await t.ctx.accountClock.now(account.id, t.ctx.db);
    // Before, the rule named Fintoc: a session of another processor saying it holds its sale held nothing, and a
    // Fintoc session held its sale whatever it said.
    const session = (transactionId: string, processor: string, holdsSale: boolean) => ({
      attempt_id: `att_${processor}_${transactionId}`,
      transaction_id: transactionId,
      account_id: account.id,
      processor,
      token: `tok_${processor}_${transactionId}`,
      state: 'redirected' as const,
      holds_sale: holdsSale,
      created_at: now,
      updated_at: now,
    });
    await t.ctx.db
      .insertInto('processor_sessions')
      .values([session(marked!.id, 'other_bank', true), session(unmarked!.id, 'fintoc', false)])
      .execute();
    expect(await hasUndecidedSession(t.ctx.db, marked!.id)).toBe(true);
    expect(await hasUndecidedSession(t.ctx.db, unmarked!.id)).toBe(false);
    const leaseUntil = new Date(now.getTime() + 60_000);
    const rows = await claimPayable(
      t.ctx.db,
      { accountId: account.id, now, guardUndecided: true },
      [
        { transactionId: marked!.id, attemptId: 'att_holds_marked', leaseUntil },
        { transactionId: unmarked!.id, attemptId: 'att_holds_unmarked', leaseUntil },
      ],
    );
    expect(rows.map((r) => r?.attempt_id)).toEqual([undefined, 'att_holds_unmarked']);
  });

  // Decision 630: a success group locks an account's pending rows in id order (outcome-statement.ts); a claim call
  // taking them in arrival order could hold one of them and wait for another the group holds: a deadlock.
  it.runIf(process.env.DATABASE_URL !== undefined)(
    "takes its rows' locks in the order of their ids, whatever the claims' order",
    async () => {
      const account = await t.createAccount();
      const [low, high] = (await pendingCheckouts(account, 2, 'order')).sort((a, b) =>
        a.id < b.id ? -1 : 1,
      );
      const pool = t.handle.pool!;
      const holder = await pool.connect();
      const prober = await pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM transactions WHERE id = $1 FOR UPDATE', [high!.id]);
        const now = new Date();
        const leaseUntil = new Date(now.getTime() + 60_000);
        // The higher id first: in arrival order the call would wait on it before touching the lower one.
        const claimed = claimPayable(
          t.ctx.db,
          { accountId: account.id, now, guardUndecided: false },
          [
            { transactionId: high!.id, attemptId: 'att_order_high', leaseUntil },
            { transactionId: low!.id, attemptId: 'att_order_low', leaseUntil },
          ],
        );
        const deadline = Date.now() + 10_000;
        for (;;) {
          const { rows } = await prober.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%cobro_claim_attempts%'",
          );
          if (rows[0].n === 1) break;
          if (Date.now() > deadline) throw new Error('the claim call never waited');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        // While it waits for the higher id, it already holds the lower one.
        await prober.query('BEGIN');
        const probe = await prober
          .query('SELECT id FROM transactions WHERE id = $1 FOR UPDATE NOWAIT', [low!.id])
          .then(
            () => 'free',
            (error: { code?: string }) => error.code,
          );
        await prober.query('ROLLBACK');
        expect(probe).toBe('55P03');
        await holder.query('COMMIT');
        expect((await claimed).map((row) => row?.attempt_id)).toEqual([
          'att_order_high',
          'att_order_low',
        ]);
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await prober.query('ROLLBACK').catch(() => undefined);
        holder.release();
        prober.release();
      }
    },
  );
});

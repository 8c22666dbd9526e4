// Group commit of creates (decision 400): keyless creates of an account that arrive together are written by one
// statement, one row each. Proven through HTTP on both engines: they share transactions (the rows' xmin), every
// answer names its own row with its own values, keyed creates commit with their key's answer, a row whose write
// fails fails alone, a group whose commit's answer is lost answers every create once, an account whose row another
// transaction holds stalls no other account's creates, and one statement writes every column as the single-row
// INSERT does.
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
import {
  insertTransaction,
  insertTransactions,
  type NewTransaction,
} from '../../../src/modules/transactions/transaction-insert.ts';
import { queuedCreatesOf } from '../../../src/modules/transactions/create-group-commit.ts';
import { newId } from '../../../src/platform/ids/ids.ts';
import { runSql } from '../../../src/platform/db/run-sql.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const bodyOf = (i: number) => ({
  email: `payer${i}@example.com`,
  order: `grp-${i}`,
  subject: `Compra ${i}`,
  amount: 1000 + i,
});

async function rowsOf(accountId: string) {
  const { rows } = await sql<{
    id: string;
    email: string;
    order: string;
    subject: string;
    amount_minor: string;
    writer: string;
    created_at: Date;
  }>`
    SELECT id, email, "order", subject, amount_minor::text AS amount_minor, xmin::text AS writer, created_at
    FROM transactions WHERE account_id = ${accountId}`.execute(t.ctx.db);
  return rows;
}

/**
 * Fails the caller of the next group INSERT after it has run (and committed): its answer lost on the way back, in
 * node-postgres's own words for a connection the server closed (no SQLSTATE), or with `fault` set, as a broken
 * assertion would.
 */
class LoseNextGroupAnswer implements KyselyPlugin {
  armed = false;
  lost = 0;
  fault = false;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    // A group: its INSERT's rows, or the rows its audited statement answers it wrote (decision 605).
    const written = (args.result.rows[0] as { written?: unknown } | undefined)?.written;
    const rows =
      written === undefined ? (args.result.numAffectedRows ?? 0n) : BigInt(String(written));
    if (this.armed && rows > 1n) {
      this.armed = false;
      this.lost++;
      if (this.fault) throw new Error('a group fault after the commit');
      throw new Error('Connection terminated unexpectedly');
    }
    return args.result;
  }
}

const gateOrder = 'grp-gate';

/** Polls `done` every few milliseconds; fails after `timeoutMs`. */
async function until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for the lane: queued ${queuedCreatesOf(t.ctx)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Posts `bodies` as keyless creates of `account` as one group whatever the box's load. On PostgreSQL a gate create is
 * written first while a transaction of the test holds the account's row (a create locks it), so the gate stays in
 * flight until every create has queued behind it; without it the first create could run alone, when the box is
 * slow to read the others. PGlite takes each group one loop turn after its first create arrives (decision 400),
 * when every request of one batch has reached the lane.
 */
async function queuedBehindGate(account: TestAccount, bodies: readonly object[]) {
  const post = (body: object) => t.call(account, { method: 'POST', url: '/api/transaction', body });
  const pool = t.handle.pool;
  if (pool === undefined || pool === null) return Promise.all(bodies.map(post));
  const holder = await pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [account.id]);
    const gate = post({ ...bodyOf(99), order: gateOrder });
    await until(
      () => t.ctx.transactionCreateGroups.has(account.id) && queuedCreatesOf(t.ctx) === 0,
    );
    const answers = Promise.all(bodies.map(post));
    await until(() => queuedCreatesOf(t.ctx) === bodies.length);
    await holder.query('COMMIT');
    expect((await gate).statusCode).toBe(200);
    return await answers;
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    holder.release();
  }
}

describe('create group commit', () => {
  it('writes creates that arrive together in fewer transactions, each answered with its own row', async () => {
    const a = await t.createAccount('Tienda concurrente');
    const count = 24;
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        t.call(a, { method: 'POST', url: '/api/transaction', body: bodyOf(i) }),
      ),
    );
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    const ids = answers.map((res) => res.json().id as string);
    expect(new Set(ids).size).toBe(count);
    const rows = await rowsOf(a.id);
    expect(rows).toHaveLength(count);
    const byId = new Map(rows.map((row) => [row.id, row]));
    ids.forEach((id, i) => {
      const row = byId.get(id)!;
      expect({
        email: row.email,
        order: row.order,
        subject: row.subject,
        amount: row.amount_minor,
      }).toEqual({
        email: `payer${i}@example.com`,
        order: `grp-${i}`,
        subject: `Compra ${i}`,
        amount: String(1000 + i),
      });
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
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        t.call(a, {
          method: 'POST',
          url: '/api/transaction',
          body: bodyOf(i),
          ...(i % 3 === 0 ? { headers: { 'idempotency-key': `key-${i}` } } : {}),
        }),
      ),
    );
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    const rows = await rowsOf(a.id);
    expect(rows).toHaveLength(16);
    // A keyed create's row is written in the runner's transaction, never in a group: no other row shares its writer,
    // while the keyless ones were grouped.
    const keyed = new Set(
      answers.filter((_, i) => i % 3 === 0).map((res) => res.json().id as string),
    );
    const writers = rows.map((row) => row.writer);
    for (const row of rows) {
      if (keyed.has(row.id))
        expect(
          writers.filter((w) => w === row.writer),
          row.id,
        ).toHaveLength(1);
    }
    expect(
      new Set(rows.filter((row) => !keyed.has(row.id)).map((row) => row.writer)).size,
    ).toBeLessThan(16 - keyed.size);
    // The same request again gets the same transaction.
    const again = await t.call(a, {
      method: 'POST',
      url: '/api/transaction',
      body: bodyOf(3),
      headers: { 'idempotency-key': 'key-3' },
    });
    expect(again.json().id).toBe(answers[3]!.json().id);
    expect(await rowsOf(a.id)).toHaveLength(16);
  });

  it('fails only the create whose row cannot be written; the others of its group are written', async () => {
    const a = await t.createAccount('Tienda envenenada');
    await runSql(t.ctx.db, 'CREATE SEQUENCE test_poison_tries');
    await runSql(
      t.ctx.db,
      `
      CREATE FUNCTION test_poison_create() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW."order" = 'grp-poison' THEN PERFORM nextval('test_poison_tries'); RAISE EXCEPTION 'poisoned create'; END IF; RETURN NEW; END $$`,
    );
    await runSql(
      t.ctx.db,
      'CREATE TRIGGER test_poison_create BEFORE INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION test_poison_create()',
    );
    try {
      const bodies = Array.from({ length: 12 }, (_, i) =>
        i === 5 ? { ...bodyOf(i), order: 'grp-poison' } : bodyOf(i),
      );
      const answers = await queuedBehindGate(a, bodies);
      for (const [i, res] of answers.entries())
        expect(res.statusCode, res.body).toBe(i === 5 ? 500 : 200);
      const rows = (await rowsOf(a.id)).filter((row) => row.order !== gateOrder);
      expect(rows.map((row) => row.order).sort()).toEqual(
        bodies
          .filter((_, i) => i !== 5)
          .map((b) => b.order)
          .sort(),
      );
      expect(rows.map((row) => row.id).sort()).toEqual(
        answers
          .filter((_, i) => i !== 5)
          .map((res) => res.json().id)
          .sort(),
      );
      // The poisoned row was tried twice: in its group, whose statement failed, then alone (a sequence's value is not
      // rolled back with the statement).
      const { rows: tries } = await sql<{
        last_value: string;
      }>`SELECT last_value::text FROM test_poison_tries`.execute(t.ctx.db);
      expect(tries[0]!.last_value).toBe('2');
    } finally {
      await runSql(t.ctx.db, 'DROP TRIGGER test_poison_create ON transactions');
      await runSql(t.ctx.db, 'DROP FUNCTION test_poison_create()');
      await runSql(t.ctx.db, 'DROP SEQUENCE test_poison_tries');
    }
  });

  it("writes every column as the single-row INSERT does, each row with its own account's sandbox time", async () => {
    const plain = await t.createAccount('Tienda igual');
    const moved = await t.createAccount('Tienda adelantada');
    await t.ctx.accountClock.advance(moved.id, 3 * 86_400_000 + 7, t.ctx.db);
    const texts = [
      'a,b',
      '{x}',
      '"q"',
      'back\\slash',
      'NULL',
      '',
      '  padded  ',
      'ünï©ødé 🎉 \u2028',
      'tab\tnl\n',
      "o'quote",
      '{"a":1}',
    ];
    const jsons = [
      null,
      '{}',
      'null',
      '"str"',
      '{"k":"a\\"b"}',
      '{"k":"\\u00e9 é 🎉"}',
      '{"a":[1,{"b":null}],"n":1.50}',
      '{"c":"a,b","b":"{x}"}',
      '[1,2,3]',
    ];
    const given = new Date(Date.UTC(2026, 1, 2, 3, 4, 5, 6));
    let serial = 0;
    const rowsFor = (): NewTransaction[] =>
      Array.from({ length: 22 }, (_, i) => {
        const text = texts[i % texts.length]!;
        return {
          id: newId('trx', 17),
          accountId: i % 2 === 0 ? plain.id : moved.id,
          email: `${text}@x`,
          order: text,
          subject: text,
          amountMinor: i % 2 === 0 ? 9_007_199_254_740_993n : 1n,
          currency: 'CLP',
          payment: [null, 0, 2_147_483_647][i % 3]!,
          expiresAt: i % 2 === 0 ? new Date(Date.UTC(2027, 0, 1, 2, 3, 4, 567)) : null,
          urlreturn: i % 4 === 0 ? null : text,
          urlnotify: i % 5 === 0 ? null : text,
          additionalParametersJson: jsons[i % jsons.length]!,
          extension: i % 2 === 0 ? 'x' : null,
          extensionRef: i % 2 === 0 ? text : null,
          paymentKey: newId('pr', 17),
          transactionKey: String(3_000_000_000_000_000 + ++serial),
          verificationKey: text,
          createdAt: i % 3 === 2 ? given : null,
        };
      });
    const dump = async (ids: readonly string[]) => {
      const { rows } = await sql<{ id: string; j: unknown }>`
        SELECT id, to_jsonb(t) - 'id' - 'number' - 'payment_key' - 'transaction_key' AS j FROM transactions t WHERE id = ANY(${ids})`.execute(
        t.ctx.db,
      );
      const byId = new Map(rows.map((row) => [row.id, row.j]));
      return ids.map((id) => byId.get(id));
    };
    const stamped: string[] = [];
    for (const mode of ['sandbox', 'production'] as const) {
      const ctx = { ...t.ctx, config: { ...t.ctx.config, mode } };
      const alone = rowsFor();
      for (const row of alone) await insertTransaction(ctx, ctx.db, row);
      const grouped = rowsFor();
      await insertTransactions(ctx, ctx.db, grouped);
      const [one, many] = [
        await dump(alone.map((r) => r.id)),
        await dump(grouped.map((r) => r.id)),
      ];
      expect(many.every((j) => j !== undefined)).toBe(true);
      for (const [i, j] of many.entries()) expect(j, `${mode} row ${i}`).toEqual(one[i]);
      if (mode === 'sandbox')
        stamped.push(...grouped.filter((r) => r.createdAt === null).map((r) => r.id));
    }
    // In the sandbox the statement computes each row's time from its own account's clock: the moved one 3 days ahead.
    const stamps = await t.ctx.db
      .selectFrom('transactions')
      .select(['account_id', 'created_at', 'updated_at'])
      .where('id', 'in', stamped)
      .execute();
    expect(stamps).toHaveLength(stamped.length);
    const now = t.clock.now().getTime();
    for (const row of stamps) {
      expect(row.updated_at.getTime()).toBe(row.created_at.getTime());
      expect(row.created_at.getTime()).toBe(
        row.account_id === moved.id ? now + 3 * 86_400_000 + 7 : now,
      );
    }
  });

  it('answers every create of a group once when the commit went through but its answer was lost', async () => {
    const lost = new LoseNextGroupAnswer();
    const other = await startTestApp({ sharing: t, dbPlugin: lost });
    try {
      const a = await other.createAccount('Tienda sin respuesta');
      lost.armed = true;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          other.call(a, { method: 'POST', url: '/api/transaction', body: bodyOf(i) }),
        ),
      );
      expect(lost.lost).toBe(1);
      for (const res of answers) expect(res.statusCode, res.body).toBe(200);
      const rows = await rowsOf(a.id);
      expect(rows.map((row) => row.id).sort()).toEqual(answers.map((res) => res.json().id).sort());
    } finally {
      await other.close();
    }
  });

  it('fails every create of a group on a fault no row causes, and runs none of them again', async () => {
    const lost = new LoseNextGroupAnswer();
    lost.fault = true;
    const other = await startTestApp({ sharing: t, dbPlugin: lost });
    try {
      const a = await other.createAccount('Tienda con falla');
      lost.armed = true;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          other.call(a, { method: 'POST', url: '/api/transaction', body: bodyOf(i) }),
        ),
      );
      expect(lost.lost).toBe(1);
      // The fault comes after the group's one statement committed, rows and audit rows (decision 605): its creates
      // answer the fault (500) and none runs again, so every create is written once, the group's too.
      const failed = answers.filter((res) => res.statusCode === 500);
      expect(failed.length).toBeGreaterThan(1);
      for (const res of answers) expect([200, 500], res.body).toContain(res.statusCode);
      const rows = await rowsOf(a.id);
      expect(new Set(rows.map((row) => row.order)).size).toBe(rows.length);
      expect(rows).toHaveLength(answers.length);
    } finally {
      await other.close();
    }
  });

  it.runIf(process.env.DATABASE_URL !== undefined)(
    "keeps other accounts' creates going while one account's row is held",
    async () => {
      const held = await t.createAccount('Tienda bloqueada');
      const free = await t.createAccount('Tienda libre');
      const pool = t.handle.pool;
      expect(pool).toBeDefined();
      const holder = await pool!.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [held.id]);
        const waiting = t.call(held, { method: 'POST', url: '/api/transaction', body: bodyOf(1) });
        await new Promise((resolve) => setTimeout(resolve, 100));
        const answers = await Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            t.call(free, { method: 'POST', url: '/api/transaction', body: bodyOf(i) }),
          ),
        );
        for (const res of answers) expect(res.statusCode, res.body).toBe(200);
        await holder.query('COMMIT');
        expect((await waiting).statusCode).toBe(200);
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        holder.release();
      }
    },
  );
});

// Decision 1120: one account's changes raced at once over real HTTP (keyless creates that join group commits, keyed
// creates, sandbox credits, payouts, some of them refused for want of money) with operator commands on the same
// account, leave one unbroken chain: a row for each change that committed, none for a refusal, positions 1..n with
// no gap or fork, each row naming the row before it, and `cobro audit verify` clean; one Idempotency-Key sent four
// times at once leaves one row. Run on PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { verifyAudit } from '../../../src/platform/audit/verify.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { httpTo } from '../../support/over-http.ts';
import { fund, payoutBody } from '../../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let base: string;
let a: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  a = await t.createAccount('Audit race');
  await fund(t, a, 10_000);
}, 60_000);
afterAll(async () => {
  await t.close();
});

const http = httpTo(() => base);

describe("one account's changes raced over HTTP and the CLI", () => {
  it('leave one row each, in one chain with no gap or fork', async () => {
    const before = await t.ctx.db
      .selectFrom('audit_log')
      .select('id')
      .where('chain', '=', a.id)
      .execute();
    const create = (i: number, headers: Record<string, string> = {}) =>
      http(
        a,
        'POST',
        '/api/transaction',
        { email: 'p@example.com', order: `race-${i}`, subject: 'Compra', amount: 1000 + i },
        { headers },
      );
    const requests = [
      ...Array.from({ length: 10 }, (_, i) => create(i)),
      ...Array.from({ length: 4 }, (_, i) =>
        create(100 + i, { 'idempotency-key': `race-key-${i}` }),
      ),
      ...Array.from({ length: 4 }, (_, i) =>
        http(a, 'POST', '/api/sandbox/wallet/credit', {
          amount: 500 + i,
          currency: 'CLP',
          reason: 'r',
        }),
      ),
      // 4 payouts of 4,000 from 10,000 and the credits: some are refused for want of money.
      ...Array.from({ length: 4 }, (_, i) =>
        http(a, 'POST', '/api/wallet/payout', payoutBody({ order: `race-p-${i}`, amount: 4000 }), {
          sign: true,
        }),
      ),
    ];
    const operator = Array.from({ length: 2 }, (_, i) =>
      dispatch(
        [
          'wallet',
          'credit',
          '--account',
          a.id,
          '--amount',
          '100',
          '--reason',
          'r',
          '--key',
          `T-${i}`,
        ],
        t.ctx,
      ),
    );
    const answers = await Promise.all(requests);
    const commands = await Promise.all(operator);
    for (const c of commands) expect(c.exitCode, c.stderr).toBe(0);
    const changed = answers.filter((r) => r.status === 200 && r.json.status !== 'failed');
    const refused = answers.filter((r) => !(r.status === 200 && r.json.status !== 'failed'));
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) expect(r.status, r.text).toBeLessThan(500);
    expect(changed.length).toBeGreaterThanOrEqual(18);

    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('chain', '=', a.id)
      .orderBy('seq')
      .execute();
    expect(rows.length - before.length).toBe(changed.length + commands.length);
    expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => i + 1));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash);
    const head = await t.ctx.db
      .selectFrom('audit_heads')
      .selectAll()
      .where('chain', '=', a.id)
      .executeTakeFirstOrThrow();
    expect([Number(head.seq), head.hash]).toEqual([rows.length, rows.at(-1)!.hash]);
    // Every sale made is named by a row of the chain, by its id.
    const targets = new Set(rows.map((r) => r.target));
    for (const r of changed.filter(
      (c) => typeof c.json.id === 'string' && c.json.id.startsWith('trx'),
    ))
      expect(targets).toContain(r.json.id);
    expect(rows.filter((r) => r.action === 'cobro wallet credit')).toHaveLength(2);
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('one Idempotency-Key sent four times at once makes one change and one row', async () => {
    const before = await t.ctx.db
      .selectFrom('audit_log')
      .select('id')
      .where('chain', '=', a.id)
      .execute();
    const body = { amount: 700, currency: 'CLP', reason: 'una vez' };
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        http(a, 'POST', '/api/sandbox/wallet/credit', body, {
          headers: { 'idempotency-key': 'race-once' },
        }),
      ),
    );
    const made = answers.filter((r) => r.status === 200);
    expect(made.length).toBeGreaterThanOrEqual(1);
    for (const r of answers) expect(r.status, r.text).toBeLessThan(500);
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .select(['target', 'request_id'])
      .where('chain', '=', a.id)
      .where(
        'id',
        'not in',
        before.map((r) => r.id),
      )
      .execute();
    expect(rows).toHaveLength(1);
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });
});

// Large pages are read in bounded chunks (src/platform/db/chunked-read.ts): the page is the same as one query's,
// and a request that arrives while a 4000-row page is being read is answered before that page, on either engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { readInChunks } from '../../../src/platform/db/chunked-read.ts';
import { limits } from '../../../src/limits/index.ts';

const chunk = limits.dbReadChunkRowsMax;

describe('readInChunks', () => {
  const source = Array.from({ length: 2 * chunk + 7 }, (_, i) => i);
  const read = (from: number, limit: number) => Promise.resolve(source.slice(from, from + limit));
  it.each([1, chunk - 1, chunk, chunk + 1, 2 * chunk, 2 * chunk + 7, 3 * chunk])(
    'reads %i rows as one query would',
    async (total) => {
      const calls: number[] = [];
      const rows = await readInChunks(
        total,
        (limit) => {
          calls.push(limit);
          return read(0, limit);
        },
        (last, limit) => {
          calls.push(limit);
          return read(last + 1, limit);
        },
      );
      expect(rows).toEqual(source.slice(0, total));
      expect(Math.max(...calls)).toBeLessThanOrEqual(chunk);
    },
  );
});

describe('a 4000-row wallet page', () => {
  let t: TestApp;
  let account: TestAccount;
  const movementsCount = limits.pageSizeMax + 300;

  beforeAll(async () => {
    t = await startTestApp();
    account = await t.createAccount();
    // Movements written straight to the table (their journals are beside the point here), so the FK checks are off.
    await t.ctx.db.transaction().execute(async (tx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(tx);
      await sql`INSERT INTO wallet_movements (id, account_id, currency, "order", subject, income_expense, status, amount_minor, balance_after_minor, origin_liquidation, kind, reference, journal_id, created_at)
        SELECT 'wa' || lpad(g::text, 16, '0'), ${account.id}, 'CLP', 'o' || g, 'movimiento ' || g, 'income', 'current', 1000, 1000 * g, NULL, 'adjustment', 'r' || g, 'j' || g, now()
        FROM generate_series(1, ${movementsCount}::int) g`.execute(tx);
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('holds the same rows in the same order as one query, on page 1 and on a later page', async () => {
    for (const [page, perPage] of [
      [1, limits.pageSizeMax],
      [2, 1200],
    ] as const) {
      const res = await t.call(account, {
        method: 'GET',
        url: `/api/wallet?per_page=${perPage}&page=${page}`,
        sign: true,
      });
      expect(res.statusCode).toBe(200);
      const ids = (res.json() as { wallet_movements: { id: string }[] }).wallet_movements.map(
        (m) => m.id,
      );
      const expected = await t.ctx.db
        .selectFrom('wallet_movements')
        .select('id')
        .where('account_id', '=', account.id)
        .orderBy('seq', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute();
      expect(ids).toEqual(expected.map((r) => r.id));
    }
  });

  it('lets a request that arrives during the read finish first', async () => {
    // Both routes answered once first: a route's schemas compile on its first call, which on a loaded box can take
    // longer than the whole page on PostgreSQL, and this test is about the page's reads, not that compile.
    await t.call(null, { method: 'GET', url: '/api/banks' });
    await t.call(account, { method: 'GET', url: '/api/wallet?per_page=1', sign: true });
    const finished: string[] = [];
    const big = t
      .call(account, {
        method: 'GET',
        url: `/api/wallet?per_page=${limits.pageSizeMax}`,
        sign: true,
      })
      .then((r) => {
        finished.push('page');
        return r;
      });
    const small = t.call(null, { method: 'GET', url: '/api/banks' }).then((r) => {
      finished.push('banks');
      return r;
    });
    const [page, banks] = await Promise.all([big, small]);
    expect(page.statusCode).toBe(200);
    expect(banks.statusCode).toBe(200);
    expect(finished).toEqual(['banks', 'page']);
  });
});

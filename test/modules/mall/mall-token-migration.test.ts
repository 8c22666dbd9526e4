// Migration 0300 (decision 440) on a database written before it: a mall line's plain store token becomes its
// SHA-256, and the mall callbacks still in the outbox and the create answers kept for idempotency replays name the
// stores instead of carrying their tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { migrateToLatest } from '../../../src/platform/db/migrate.ts';
import { publicTokenHash } from '../../../src/platform/auth/tokens.ts';
import { runSql } from '../../../src/platform/db/run-sql.ts';

let t: TestApp;
let owner: TestAccount;
let store: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createAccount('Mall Centro');
  store = await t.createAccount('Tienda Gamma');
});
afterAll(async () => {
  await t.close();
});

describe('migration 0300', () => {
  it('hashes the stored store tokens and takes them out of pending callbacks and kept answers', async () => {
    const body = {
      email: 'p@example.com',
      payment: 1,
      order: 77,
      urlreturn: 'https://shop.example.com/r',
      urlnotify: 'https://shop.example.com/n',
      merchant: [[store.publicToken, 12000, 'item', null, 'g-1']],
    };
    const created = await t.call(owner, {
      method: 'POST',
      url: '/api/mall',
      body,
      sign: true,
      headers: { 'idempotency-key': 'mig-0300' },
    });
    expect(created.statusCode).toBe(200);
    const mallId = created.json().id as string;
    const line = await t.ctx.db
      .selectFrom('mall_lines')
      .select(['transaction_id'])
      .where('mall_id', '=', mallId)
      .executeTakeFirstOrThrow();
    // The database as the code before 0300 left it: the token in the line, the answer and a pending callback.
    const oldAnswer = JSON.stringify({
      ...created.json(),
      individual_orders: [{ ...created.json().individual_orders[0], merchant: store.publicToken }],
    });
    await runSql(
      t.ctx.db,
      `
      ALTER TABLE mall_lines ADD COLUMN merchant TEXT;
      UPDATE mall_lines SET merchant = '${store.publicToken}';
      ALTER TABLE mall_lines ALTER COLUMN merchant SET NOT NULL;
      ALTER TABLE mall_lines DROP COLUMN merchant_hash;
      DELETE FROM kysely_migration WHERE name = '0300-mall-store-token-hash'`,
    );
    await sql`UPDATE idempotency_keys SET body = ${oldAnswer} WHERE idem_key = 'mig-0300'`.execute(
      t.ctx.db,
    );
    const payload = {
      id: mallId,
      order: '77',
      status: 'success',
      individual_orders: [
        {
          merchant: store.publicToken,
          amount: '12000',
          transaction_id: line.transaction_id,
          status: 'success',
        },
      ],
    };
    await sql`INSERT INTO notifications (id, account_id, url, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
      SELECT 'ntf_mig0300', ${owner.id}, 'https://shop.example.com/n', 'mall.result', ${JSON.stringify(payload)}::jsonb, 'pending', 0,
        now() + interval '1 day', now(), now()`.execute(t.ctx.db);

    expect((await migrateToLatest(t.ctx.db)).applied).toEqual(['0300-mall-store-token-hash']);
    const rows = await t.ctx.db
      .selectFrom('mall_lines')
      .selectAll()
      .where('mall_id', '=', mallId)
      .execute();
    expect(rows.map((r) => r.merchant_hash)).toEqual([publicTokenHash(store.publicToken)]);
    expect(Object.values(rows[0]!).map(String)).not.toContain(store.publicToken);
    const kept = await sql<{
      body: string;
    }>`SELECT body FROM idempotency_keys WHERE idem_key = 'mig-0300'`.execute(t.ctx.db);
    expect(kept.rows[0]!.body).not.toContain(store.publicToken);
    expect(JSON.parse(kept.rows[0]!.body).individual_orders[0].merchant).toBe('Tienda Gamma');
    const pending = await t.ctx.db
      .selectFrom('notifications')
      .select('payload')
      .where('id', '=', 'ntf_mig0300')
      .executeTakeFirstOrThrow();
    expect(pending.payload).toMatchObject({
      individual_orders: [{ merchant: 'Tienda Gamma', transaction_id: line.transaction_id }],
    });
    // The replay answers the rewritten body.
    const replay = await t.call(owner, {
      method: 'POST',
      url: '/api/mall',
      body,
      sign: true,
      headers: { 'idempotency-key': 'mig-0300' },
    });
    expect(replay.body).not.toContain(store.publicToken);
  });
});

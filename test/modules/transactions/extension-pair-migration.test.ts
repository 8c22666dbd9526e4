// Migration 0380 (decision 550) on a database written before it: a transaction's membership and event move from
// their own columns into the extension pair, and the columns named after extensions are gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { migrateToLatest } from '../../../src/platform/db/migrate.ts';
import { runSql } from '../../../src/platform/db/run-sql.ts';
import { createTransaction } from './helpers.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('migration 0380', () => {
  it('moves membership_id and event_id into (extension, extension_ref) and drops the three columns', async () => {
    const ids: string[] = [];
    for (const order of ['split', 'event', 'token-only', 'plain'])
      ids.push((await createTransaction(t, account, { order })).id);
    const [split, event, tokenOnly, plain] = ids as [string, string, string, string];
    // The table as the code before 0380 left it (migrations 0030 and 0042), with one row of each kind.
    await runSql(
      t.ctx.db,
      `
      ALTER TABLE transactions ADD COLUMN marketplace TEXT;
      ALTER TABLE transactions ADD COLUMN membership_id TEXT;
      ALTER TABLE transactions ADD COLUMN event_id TEXT;
      ALTER TABLE transactions ADD CONSTRAINT transactions_one_split CHECK (membership_id IS NULL OR event_id IS NULL);
      CREATE INDEX transactions_event ON transactions (event_id) WHERE event_id IS NOT NULL;
      CREATE INDEX transactions_membership ON transactions (membership_id) WHERE membership_id IS NOT NULL;
      ALTER TABLE transactions DROP CONSTRAINT transactions_extension_pair;
      ALTER TABLE transactions DROP COLUMN extension;
      ALTER TABLE transactions DROP COLUMN extension_ref;
      UPDATE transactions SET marketplace = 'tok', membership_id = 'ma_one' WHERE id = '${split}';
      UPDATE transactions SET event_id = 'ev_one' WHERE id = '${event}';
      UPDATE transactions SET marketplace = 'unresolved' WHERE id = '${tokenOnly}';
      DELETE FROM kysely_migration WHERE name = '0380-transaction-extension-pair'`,
    );
    expect((await migrateToLatest(t.ctx.db)).applied).toEqual(['0380-transaction-extension-pair']);
    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select(['id', 'extension', 'extension_ref'])
      .where('id', 'in', ids)
      .execute();
    expect(new Map(rows.map((r) => [r.id, [r.extension, r.extension_ref]]))).toEqual(
      new Map([
        [split, ['marketplace', 'ma_one']],
        [event, ['event', 'ev_one']],
        [tokenOnly, [null, null]],
        [plain, [null, null]],
      ]),
    );
    const columns = await t.ctx.db
      .selectFrom('information_schema.columns' as never)
      .select('column_name' as never)
      .where('table_name' as never, '=', 'transactions' as never)
      .where('column_name' as never, 'in', ['marketplace', 'membership_id', 'event_id'] as never)
      .execute();
    expect(columns).toEqual([]);
    // Both or neither: a half-named extension is refused by the table.
    await expect(
      t.ctx.db
        .updateTable('transactions')
        .set({ extension: 'marketplace' })
        .where('id', '=', plain)
        .execute(),
    ).rejects.toThrow('transactions_extension_pair');
  });
});

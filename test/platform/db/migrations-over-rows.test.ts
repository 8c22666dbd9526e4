// This session's migrations (0790, 0830, 0840, 0850, 0860; decision 998) over a database that already holds rows of
// every table they touch: the database is built at 0770, filled as a production one would be, migrated to head, and
// each backfill checked; then, after rows only the new schema allows, every `down` runs back to 0770 and leaves the
// schema a fresh 0770 database has, and the upgrade runs again. Upgrades run through Cobro's own runner, which
// applies 0850's concurrent index builds outside a transaction (decision 1020).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../../src/platform/db/migrate.ts';
import { schemaOf } from '../../support/db-digest.ts';
import { emptyDatabase } from '../../support/database.ts';

const migrationsDir = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../src/platform/db/migrations',
);
const before = '0770-sign-in-tries';

async function provider(upTo?: string) {
  const files = fs
    .readdirSync(migrationsDir)
    .filter((f) => /^\d{4}-[\w-]+\.ts$/.test(f))
    .sort()
    .filter((f) => upTo === undefined || f.replace(/\.ts$/, '') <= upTo);
  const out: Record<string, Migration> = {};
  for (const f of files)
    out[f.replace(/\.ts$/, '')] = (await import(
      pathToFileURL(path.join(migrationsDir, f)).href
    )) as Migration;
  return { getMigrations: async () => out };
}

async function migrator(db: Kysely<any>, upTo?: string): Promise<Migrator> {
  return new Migrator({ db, provider: await provider(upTo), allowUnorderedMigrations: true });
}

/** 0261 builds its index CONCURRENTLY, which no transaction block may hold (decision 1020). */
const outsideTransactions = { disableTransactions: true } as const;

async function check(run: Promise<{ error?: unknown }>): Promise<void> {
  const { error } = await run;
  if (error !== undefined) throw error;
}

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

/** Statements on one connection, foreign keys not enforced (rows of tables this test does not fill are named). */
async function insertRows(db: Kysely<any>, statements: readonly string[]): Promise<void> {
  await db.connection().execute(async (c) => {
    await sql`SET session_replication_role = replica`.execute(c);
    for (const s of statements) await sql.raw(s).execute(c);
    await sql`SET session_replication_role = DEFAULT`.execute(c);
  });
}

const at = "'2026-01-01T00:00:00Z'";
const rowsAt0770 = [
  `INSERT INTO accounts (id, name, public_token_hash, public_token_enc, private_token_enc, webhook_secret_enc,
     created_at, updated_at) VALUES
     ('acc_a', 'A', 'h1', 'x', 'x', 'x', ${at}, ${at}), ('acc_b', 'B', 'h2', 'x', 'x', 'x', ${at}, ${at})`,
  `INSERT INTO fintoc_events (event_id, account_id, type, received_at) VALUES
     ('evt_1', 'acc_a', 'transfer.succeeded', ${at}), ('evt_2', 'acc_b', 'transfer.failed', ${at})`,
  `INSERT INTO su_clients (id, account_id, email, name, phone, created_at) VALUES
     ('cli_1', 'acc_a', 'a@example.com', 'A', '1', ${at})`,
  `INSERT INTO su_subscriptions (id, account_id, client_id, plan_id, status, created_at) VALUES
     ('sub_live', 'acc_a', 'cli_1', 'pln_1', 'active', ${at}),
     ('sub_susp', 'acc_a', 'cli_1', 'pln_1', 'suspended', ${at}),
     ('sub_fin', 'acc_a', 'cli_1', 'pln_1', 'finish', ${at}),
     ('sub_del', 'acc_a', 'cli_1', 'pln_1', 'delete', ${at}),
     ('sub_can', 'acc_a', 'cli_1', 'pln_1', 'cancel', ${at})`,
  `INSERT INTO su_cards (id, account_id, client_id, subscription_id, brand, last4, processor_token, created_at,
     deleted_at) VALUES
     ('card_live', 'acc_a', 'cli_1', 'sub_live', 'visa', '1111', 'oneclick:sealed1', ${at}, NULL),
     ('card_susp', 'acc_a', 'cli_1', 'sub_susp', 'visa', '1111', 'oneclick:sealed2', ${at}, NULL),
     ('card_fin', 'acc_a', 'cli_1', 'sub_fin', 'visa', '1111', 'oneclick:sealed3', ${at}, NULL),
     ('card_del', 'acc_a', 'cli_1', 'sub_del', 'visa', '1111', 'oneclick:sealed4', ${at}, NULL),
     ('card_can', 'acc_a', 'cli_1', 'sub_can', 'visa', '1111', 'oneclick:sealed5', ${at}, NULL),
     ('card_gone', 'acc_a', 'cli_1', 'sub_fin', 'visa', '1111', 'oneclick:sealed6', ${at}, ${at}),
     ('card_sbx', 'acc_a', 'cli_1', 'sub_fin', 'visa', '1111', 'sandbox_card_1', ${at}, NULL)`,
  `INSERT INTO oneclick_inscriptions (token, enrolment_token, account_id, username, state, created_at) VALUES
     ('tbk_1', 'enr_1', 'acc_a', 'u1', 'started', ${at}), ('tbk_2', 'enr_2', 'acc_a', 'u2', 'failed', ${at})`,
  `INSERT INTO account_processors (account_id, processor, commerce_code, api_key_enc, environment, updated_at)
     VALUES ('acc_a', 'webpay_plus', '597055555532', 'sealed-key', 'integration', ${at})`,
  `INSERT INTO processor_sessions (attempt_id, transaction_id, account_id, processor, token, state, created_at,
     updated_at) VALUES ('att_1', 'tx_1', 'acc_a', 'webpay_plus', 'tok_1', 'redirected', ${at}, ${at})`,
  `INSERT INTO fintoc_transfers (payout_id, account_id, transfer_id, state, created_at, updated_at) VALUES
     ('pay_1', 'acc_a', 'tr_1', 'sent', ${at}, ${at}), ('pay_2', 'acc_a', NULL, 'unresolved', ${at}, ${at})`,
  `INSERT INTO fintoc_movement_findings (account_id, subject, kind, amount_minor, currency, detail, found_at) VALUES
     ('acc_a', 'pay_2', 'unresolved_transfer', 1000, 'CLP', 'd', ${at})`,
  `INSERT INTO notifications (id, account_id, url, event_type, payload, status, next_attempt_at, created_at,
     updated_at) VALUES ('msg_1', 'acc_a', 'https://example.com', 'e', '{}', 'delivered', ${at}, ${at}, ${at})`,
  `INSERT INTO destination_changes (id, account_id, subject, subject_id, current, source, notification_id,
     changed_at) VALUES ('dch_1', 'acc_a', 'account_bank', 'acc_a', '{}', 'cli', 'msg_1', ${at})`,
  `INSERT INTO audit_log (id, chain, seq, actor_kind, actor, action, target, at, prev_hash, hash) VALUES
     ('aud_1', 'c', 1, 'operator', 'op', 'callback.resend', 'msg_1', ${at}, '', 'h')`,
];

// Rows only the new schema allows: what a downgrade has to take back.
const rowsAtHead = [
  `INSERT INTO fintoc_events (event_id, account_id, type, received_at) VALUES
     ('evt_1', 'acc_b', 'transfer.succeeded', '2026-01-02T00:00:00Z')`,
  `UPDATE oneclick_inscriptions SET state = 'finishing', lease_until = ${at} WHERE token = 'tbk_1'`,
  `INSERT INTO fintoc_movement_findings (account_id, subject, kind, amount_minor, currency, detail, found_at) VALUES
     ('acc_a', 'pay_1', 'transfer_mismatch', 1000, 'CLP', 'd', ${at})`,
  `UPDATE fintoc_transfers SET mismatch = 'amount 999' WHERE payout_id = 'pay_1'`,
  `INSERT INTO webpay_keys (id, account_id, commerce_code, environment, api_key_enc, updated_at) VALUES
     ('wpk_new', 'acc_a', '597099999999', 'production', 'sealed-new', ${at})`,
  `UPDATE processor_sessions SET webpay_keys_id = 'wpk_new' WHERE token = 'tok_1'`,
];

describe('migrations 0790-0860 over a database holding rows', () => {
  it('upgrade backfills only what it should; downgrade returns the 0770 schema; upgrade again', {
    timeout: 120_000,
  }, async () => {
    const fresh = await emptyDatabase();
    cleanups.push(() => fresh.close());
    await check((await migrator(fresh.db, before)).migrateToLatest(outsideTransactions));
    const schema0770 = await schemaOf(fresh.db);

    const handle = await emptyDatabase();
    cleanups.push(() => handle.close());
    const db = handle.db;
    await check((await migrator(db, before)).migrateToLatest(outsideTransactions));
    await insertRows(db, rowsAt0770);
    await migrateToLatest(db);

    // 0830: only live cards of ended subscriptions with a Oneclick token, each due at once, once.
    const removals = await sql<{
      card_id: string;
      state: string;
      tries: number;
      due_at: Date | null;
    }>`
      SELECT card_id, state, tries, due_at FROM oneclick_card_removals ORDER BY card_id`.execute(
      db,
    );
    expect(removals.rows.map((r) => r.card_id)).toEqual(['card_can', 'card_del', 'card_fin']);
    expect(
      removals.rows.every((r) => r.state === 'due' && r.tries === 0 && r.due_at === null),
    ).toBe(true);
    const inscriptions = await sql<{ token: string; state: string; lease_until: Date | null }>`
      SELECT token, state, lease_until FROM oneclick_inscriptions ORDER BY token`.execute(db);
    expect(inscriptions.rows).toEqual([
      { token: 'tbk_1', state: 'started', lease_until: null },
      { token: 'tbk_2', state: 'failed', lease_until: null },
    ]);
    // 0860: the account's keys kept as they were sealed; the earlier session names none.
    const keys = await sql<{
      id: string;
      api_key_enc: string;
      commerce_code: string;
      environment: string;
    }>`
      SELECT id, api_key_enc, commerce_code, environment FROM webpay_keys`.execute(db);
    expect(keys.rows).toHaveLength(1);
    expect(keys.rows[0]).toMatchObject({
      api_key_enc: 'sealed-key',
      commerce_code: '597055555532',
      environment: 'integration',
    });
    const sessions = await sql<{ webpay_keys_id: string | null }>`
      SELECT webpay_keys_id FROM processor_sessions`.execute(db);
    expect(sessions.rows).toEqual([{ webpay_keys_id: null }]);
    // 0790, 0840: earlier rows untouched.
    expect((await sql`SELECT 1 FROM fintoc_events`.execute(db)).rows).toHaveLength(2);
    const transfers = await sql<{
      mismatch: string | null;
    }>`SELECT mismatch FROM fintoc_transfers`.execute(db);
    expect(transfers.rows.every((r) => r.mismatch === null)).toBe(true);

    await insertRows(db, rowsAtHead);
    await check((await migrator(db)).migrateTo(before));
    expect(await schemaOf(db)).toEqual(schema0770);
    const events = await sql<{ event_id: string; account_id: string }>`
      SELECT event_id, account_id FROM fintoc_events ORDER BY event_id`.execute(db);
    expect(events.rows).toEqual([
      { event_id: 'evt_1', account_id: 'acc_a' },
      { event_id: 'evt_2', account_id: 'acc_b' },
    ]);
    const downInscriptions = await sql<{ state: string }>`
      SELECT state FROM oneclick_inscriptions ORDER BY token`.execute(db);
    expect(downInscriptions.rows.map((r) => r.state)).toEqual(['failed', 'failed']);

    await migrateToLatest(db);
    const again = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM oneclick_card_removals`.execute(db);
    expect(again.rows[0]!.n).toBe(3);
  });
});

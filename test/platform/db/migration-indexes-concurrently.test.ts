// Migration 0850's indexes built without blocking writes (decision 1020), on PostgreSQL: a plain CREATE INDEX in the
// migration's transaction queued its lock behind a writer's open transaction, and every later write to the table
// queued behind it; built CONCURRENTLY, outside a transaction, a write proceeds while the build waits. And a build
// cut short, whose INVALID index is left behind, is dropped and built again on the next run. And a second process
// migrating meanwhile (a second start) waits its turn: queued on Kysely's lock it held a snapshot the build waited
// for, and PostgreSQL failed the build with `deadlock detected`.
import crypto from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import { migrateToLatest, migrationProvider } from '../../../src/platform/db/migrate.ts';

const url = process.env.DATABASE_URL;
const onPostgres = url !== undefined && url !== '';
const before = '0840-fintoc-transfer-lookup';
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

/** A new PostgreSQL database migrated up to 0840, 0850 still to apply. */
async function databaseBefore0850(): Promise<{ handle: DatabaseHandle; url: string }> {
  const name = `${inject('postgresClonePrefix')}cic_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(url!);
  u.pathname = `/${name}`;
  const handle = await openDatabase({ engine: 'postgres', url: u.toString() });
  cleanups.push(async () => {
    await handle.close();
    const dropper = new pg.Client({ connectionString: url });
    await dropper.connect();
    await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await dropper.end();
  });
  const upTo = {
    async getMigrations(): Promise<Record<string, Migration>> {
      const all = await migrationProvider.getMigrations();
      return Object.fromEntries(Object.entries(all).filter(([n]) => n <= before));
    },
  };
  // 0261 builds its index CONCURRENTLY, which no transaction block may hold.
  const { error } = await new Migrator({ db: handle.db, provider: upTo }).migrateToLatest({
    disableTransactions: true,
  });
  if (error !== undefined) throw error;
  return { handle, url: u.toString() };
}

const account = `INSERT INTO accounts (id, name, public_token_hash, public_token_enc, private_token_enc,
  webhook_secret_enc, created_at, updated_at) VALUES ('acc_a', 'A', 'h', 'x', 'x', 'x', now(), now())`;

function notification(id: string): string {
  return `INSERT INTO notifications (id, account_id, url, event_type, payload, next_attempt_at, created_at, updated_at)
    VALUES ('${id}', 'acc_a', 'https://example.com', 't', '{}', now(), now(), now())`;
}

async function indexes(
  db: Kysely<any>,
): Promise<Array<{ name: string; valid: boolean; def: string }>> {
  const r = await sql<{ name: string; valid: boolean; def: string }>`
    SELECT c.relname AS name, i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS def
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE c.relname IN ('notifications_final', 'destination_changes_notification', 'audit_log_callback_target')
     ORDER BY c.relname`.execute(db);
  return r.rows;
}

describe.skipIf(!onPostgres)('0850 builds its indexes concurrently (PostgreSQL)', () => {
  it('a write to notifications proceeds while the index build waits', {
    timeout: 120_000,
  }, async () => {
    const { handle, url: dbUrl } = await databaseBefore0850();
    await sql.raw(account).execute(handle.db);
    const writer = new pg.Client({ connectionString: dbUrl });
    const other = new pg.Client({ connectionString: dbUrl });
    await writer.connect();
    await other.connect();
    try {
      // A request's transaction that has written to notifications and not yet committed.
      await writer.query('BEGIN');
      await writer.query(notification('msg_open'));
      const migrating = migrateToLatest(handle.db);
      // Wait until the build is queued behind that transaction.
      for (let i = 0; i < 100; i++) {
        const waiting = await other.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type IN ('Lock') AND query ILIKE '%notifications_final%'`,
        );
        if (waiting.rowCount !== null && waiting.rowCount > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      // Another request's write, meanwhile: it must not wait behind the build.
      await other.query(`SET lock_timeout = '2s'`);
      await other.query(notification('msg_meanwhile'));
      await writer.query('COMMIT');
      expect((await migrating).applied).toContain('0850-callback-retention-indexes');
      expect((await indexes(handle.db)).map((i) => [i.name, i.valid])).toEqual([
        ['audit_log_callback_target', true],
        ['destination_changes_notification', true],
        ['notifications_final', true],
      ]);
    } finally {
      await writer.end();
      await other.end();
    }
  });

  it('an INVALID index a cut-short build left is dropped and built again', {
    timeout: 120_000,
  }, async () => {
    const { handle } = await databaseBefore0850();
    // What a build cut short leaves: an index of that name, INVALID (a unique build failed on duplicates).
    await sql.raw('CREATE TABLE scratch (a INTEGER)').execute(handle.db);
    await sql.raw('INSERT INTO scratch VALUES (1), (1)').execute(handle.db);
    await expect(
      sql
        .raw('CREATE UNIQUE INDEX CONCURRENTLY notifications_final ON scratch (a)')
        .execute(handle.db),
    ).rejects.toThrow(/could not create unique index/);
    expect((await indexes(handle.db)).map((i) => [i.name, i.valid])).toEqual([
      ['notifications_final', false],
    ]);

    expect((await migrateToLatest(handle.db)).applied).toContain('0850-callback-retention-indexes');
    const built = await indexes(handle.db);
    expect(built.every((i) => i.valid)).toBe(true);
    expect(built.find((i) => i.name === 'notifications_final')?.def).toBe(
      "CREATE INDEX notifications_final ON public.notifications USING btree (updated_at) WHERE (status = ANY (ARRAY['delivered'::text, 'failed'::text]))",
    );
  });

  it('a second process migrating meanwhile waits its turn; both succeed', {
    timeout: 120_000,
  }, async () => {
    const { handle, url: dbUrl } = await databaseBefore0850();
    const second = await openDatabase({ engine: 'postgres', url: dbUrl });
    cleanups.unshift(() => second.close());
    await sql.raw(account).execute(handle.db);
    const writer = new pg.Client({ connectionString: dbUrl });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(notification('msg_open'));
      const lines: string[] = [];
      const first = migrateToLatest(handle.db, (line) => lines.push(line));
      while (lines.length === 0) await new Promise((r) => setTimeout(r, 50));
      const other = migrateToLatest(second.db);
      // Past PostgreSQL's deadlock_timeout (1 s), with the build still waiting for the open transaction.
      await new Promise((r) => setTimeout(r, 2500));
      await writer.query('COMMIT');
      const outcomes = await Promise.allSettled([first, other]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
      expect((await indexes(handle.db)).every((i) => i.valid)).toBe(true);
    } finally {
      await writer.end();
    }
  });
});

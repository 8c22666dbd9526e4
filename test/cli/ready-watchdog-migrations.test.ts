// A `cobro serve` whose migrations outlast READY_TIMEOUT_MS is not "not ready" (decision 930). The readiness watchdog
// (decision 410) ended any start not serving within READY_TIMEOUT_MS, migrations included: a start waiting for the
// migration lock another process holds (a `cobro migrate` of the same release, a second server starting), or one
// building an index on a large table, was killed and restarted for ever (decision 840 left it open). Here the test
// holds Kysely's migration lock on a new database, waits until the start queues on it, keeps it past the start's
// READY_TIMEOUT_MS, and releases it: the start migrates and serves. A main thread that stops in the middle of the
// migrations (test/support/hang-on-file.ts blocks it as a deadlock would) is still ended with "not ready after N s";
// one stuck before them is test/cli/ready-watchdog.test.ts's.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { migrationNames } from '../../src/platform/db/migrate.ts';
import { repoRoot, runCli, startServe } from '../support/cli.ts';
import { freePort } from '../support/net.ts';

vi.setConfig({ testTimeout: 120_000 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-watchdog-migrations-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Kysely's migration lock on PostgreSQL (kysely/dist/dialect/postgres/postgres-adapter.js). */
const kyselyMigrationLockId = '3853314791062309107';
const readyTimeoutMs = 4000;
const pollsMax = 600;
const pollMs = 50;

function withDatabase(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Polls until a session of the database waits on an advisory lock: the start's migrator, queued behind ours. */
async function waitForMigratorQueued(client: pg.Client): Promise<void> {
  for (let i = 0; i < pollsMax; i++) {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
    );
    if (Number(rows[0]?.n ?? 0) >= 1) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error('the start never queued on the migration lock');
}

/** A new database with Kysely's migration lock held on it by `holder`, dropped after `body`. */
async function withLockedDatabase(
  body: (url: string, holder: pg.Client) => Promise<void>,
): Promise<void> {
  const adminUrl = process.env.DATABASE_URL!;
  const name = `cobro_t_watchdog_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const holder = new pg.Client({ connectionString: withDatabase(adminUrl, name) });
  try {
    await holder.connect();
    await holder.query(`SELECT pg_advisory_lock(${kyselyMigrationLockId})`);
    await body(withDatabase(adminUrl, name), holder);
  } finally {
    await holder.end().catch(() => {});
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

describe.runIf(process.env.DATABASE_URL)('readiness watchdog and the start migrations', () => {
  it('still ends a start whose main thread stops in the middle of its migrations', async () => {
    await withLockedDatabase(async (url, holder) => {
      const hangFile = path.join(dir, 'hang-now');
      const ended = runCli(
        ['serve'],
        {
          DATABASE_URL: url,
          DATA_DIR: path.join(dir, 'data-hung'),
          PORT: String(await freePort()),
          COBRO_WORKERS: '0',
          READY_TIMEOUT_MS: String(readyTimeoutMs),
          NODE_OPTIONS: `--import=${path.join(repoRoot, 'test', 'support', 'hang-on-file.ts')}`,
          COBRO_TEST_HANG_FILE: hangFile,
        },
        60_000,
      );
      await waitForMigratorQueued(holder);
      fs.writeFileSync(hangFile, '');
      const result = await ended;
      expect(result.stderr).toContain(`cobro: not ready after ${readyTimeoutMs / 1000} s\n`);
      expect(result.code).not.toBe(0);
    });
  });

  it('lets a start whose migrations wait past READY_TIMEOUT_MS migrate and serve', async () => {
    await withLockedDatabase(async (url, holder) => {
      const port = await freePort();
      const serving = startServe({
        DATABASE_URL: url,
        DATA_DIR: path.join(dir, 'data'),
        PORT: String(port),
        COBRO_WORKERS: '0',
        READY_TIMEOUT_MS: String(readyTimeoutMs),
      });
      // Never an unhandled rejection while the lock is still held: the outcome is awaited below.
      serving.catch(() => {});
      await waitForMigratorQueued(holder);
      // The watchdog is counted from the spawn, before the start queued: past this, the old deadline has gone by.
      await new Promise((r) => setTimeout(r, readyTimeoutMs + 1000));
      await holder.query(`SELECT pg_advisory_unlock(${kyselyMigrationLockId})`);
      const server = await serving;
      try {
        expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
        expect(server.output()).not.toContain('not ready');
        const { rows } = await holder.query<{ n: string }>(
          'SELECT count(*)::text AS n FROM kysely_migration',
        );
        expect(Number(rows[0]?.n)).toBe((await migrationNames()).length);
      } finally {
        await server.stop();
      }
    });
  });
});

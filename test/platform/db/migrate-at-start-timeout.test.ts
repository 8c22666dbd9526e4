// `cobro serve` migrates at its start on a pool whose statements give up after dbServeQueryTimeoutMs (15 s, decision
// 685: a host gone silent). A migration is no request: an index built on a large table, or the migration lock another
// process holds while it migrates (a one-shot `cobro migrate` of the same release, a second server starting), take as
// long as they take. Bounded by the request's timeout, the start failed ("Query read timeout") and every restart
// failed the same, so an upgrade could never finish through `cobro serve` (decision 840). Here the start's bound is
// cut to 500 ms and the migration lock is held for 1.5 s by another session: the start waits, then migrates.
import crypto from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrationNames } from '../../../src/platform/db/migrate.ts';
import { openRuntime } from '../../../src/runtime.ts';
import { testConfig } from '../../support/app.ts';

const url = process.env.DATABASE_URL;
/** Kysely's migration lock on PostgreSQL (kysely/dist/dialect/postgres/postgres-adapter.js). */
const kyselyMigrationLockId = '3853314791062309107';

function withDatabase(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

describe.runIf(url !== undefined && url !== '')(
  'migrations at a start with a query timeout',
  () => {
    it('wait for the migration lock longer than a request may, then apply', {
      timeout: 60_000,
    }, async () => {
      const name = `review_ops_${crypto.randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const holder = new pg.Client({ connectionString: withDatabase(url!, name) });
      await holder.connect();
      await holder.query(`SELECT pg_advisory_lock(${kyselyMigrationLockId})`);
      const released = new Promise<void>((resolve, reject) => {
        setTimeout(() => {
          holder.query(`SELECT pg_advisory_unlock(${kyselyMigrationLockId})`).then(
            () => resolve(),
            (error: unknown) => reject(error as Error),
          );
        }, 1500);
      });
      try {
        const runtime = await openRuntime(
          testConfig({ DATABASE_URL: withDatabase(url!, name), COBRO_MODE: 'sandbox' }),
          { queryTimeoutMs: 500 },
        );
        try {
          await released;
          const { rows } = await runtime.handle.pool!.query<{ n: string }>(
            'SELECT count(*)::text AS n FROM kysely_migration',
          );
          expect(Number(rows[0]?.n)).toBe((await migrationNames()).length);
        } finally {
          await runtime.close();
        }
      } finally {
        await released.catch(() => {});
        await holder.end().catch(() => {});
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    });
  },
);

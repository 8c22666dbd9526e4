// A database host that answers but is a standby (in recovery) is an outage, not a fault (decisions 420, 522, 840):
// in a switchover the old primary comes back as a standby, and a DATABASE_URL naming it (alone, or first among
// several hosts with target_session_attrs=read-write) reaches it before the new primary is found. A write there is
// refused by PostgreSQL (25006 read_only_sql_transaction); a connection Cobro refuses itself, as a standby where a
// read-write host was asked for, is refused with its own error. Both answered 500 before; the client is owed 503
// with Retry-After, in the seed's envelope, so it sends again. On a PostgreSQL cluster of the test's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../../../src/limits/index.ts';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import { migrateToLatest } from '../../../src/platform/db/migrate.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { freePort } from '../../support/net.ts';
import {
  ownPostgresSkipReason,
  startOwnPostgres,
  type OwnPostgres,
} from '../../support/own-postgres.ts';

const skipReason = ownPostgresSkipReason();

const unavailable = {
  status: 'failed',
  type: 'Service Unavailable',
  message_error: 'the database does not answer; retry later',
};

describe.skipIf(skipReason !== null)(
  `a database host that is a standby${skipReason === null ? '' : ` (skipped: ${skipReason})`}`,
  () => {
    let server: OwnPostgres;
    const handles: DatabaseHandle[] = [];
    const apps: TestApp[] = [];
    let who: TestAccount;

    const appOn = async (url: string): Promise<TestApp> => {
      const handle = await openDatabase({ engine: 'postgres', url, poolSizeMax: 2 });
      handles.push(handle);
      const app = await startTestApp({
        env: { COBRO_MODE: 'sandbox', COBRO_SECRET_KEY: 'cd'.repeat(32) },
        handle,
      });
      apps.push(app);
      return app;
    };
    const create = (app: TestApp, order: string) =>
      app.call(who, {
        method: 'POST',
        url: '/api/transaction',
        headers: { 'idempotency-key': `key-${order}` },
        body: { email: 'payer@example.com', order, subject: 'Standby', amount: 1000 },
      });

    beforeAll(async () => {
      server = await startOwnPostgres();
      const primary = await appOn(server.url);
      await migrateToLatest(primary.handle.db);
      who = await primary.createAccount();
      const created = await create(primary, 'before');
      expect(created.statusCode, created.body).toBe(200);
      await server.demote();
    }, 60_000);
    afterAll(async () => {
      for (const app of apps) await app.close();
      for (const handle of handles) await handle.close().catch(() => {});
      await server?.dispose();
    });

    it('a write on a one-host URL that now names a standby answers 503 with Retry-After, /readyz too', async () => {
      const app = await appOn(server.url);
      const res = await create(app, 'single-host');
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['retry-after']).toBe(String(limits.dbUnavailableRetryAfterS));
      expect(res.json()).toEqual(unavailable);
      // Readiness says what the writes meet: a host that takes none is not ready, though it answers SELECT 1.
      const ready = await app.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode, ready.body).toBe(503);
      expect(ready.headers['retry-after']).toBe(String(limits.dbUnavailableRetryAfterS));
    });

    it('a read-write host list whose only answering host is a standby answers 503, /readyz too', async () => {
      const app = await appOn(
        `postgres://postgres@127.0.0.1:${server.port},127.0.0.1:${await freePort()}/postgres?target_session_attrs=read-write`,
      );
      const res = await create(app, 'host-list');
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['retry-after']).toBe(String(limits.dbUnavailableRetryAfterS));
      expect(res.json()).toEqual(unavailable);
      const ready = await app.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode, ready.body).toBe(503);
    });
  },
);

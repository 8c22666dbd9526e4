// A database that does not answer is an outage (decision 420): the drivers' connection errors are told apart from
// a statement's, and the API, /readyz, the checkout and the dashboard answer 503 with Retry-After, never 500.
// The app under test runs on a PostgreSQL handle whose server refuses connections (nothing listens on its port), on
// either pass of the suite: the handlers are the engine's business no more than the drivers' errors are. A real
// server restarted is test/reliability/postgres-restart.test.ts; the embedded engine's full disk is
// test/reliability/pglite-disk-full.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../../src/platform/db/outage.ts';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import { limits } from '../../../src/limits/index.ts';
import {
  ApiError,
  databaseUnavailable,
  diskAlmostFull,
} from '../../../src/platform/errors/errors.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { freePort } from '../../support/net.ts';
import { dashboardBrowser } from '../../support/dashboard.ts';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset', pgError('ECONNRESET', 'read ECONNRESET')],
    ['admin_shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['crash_shutdown', pgError('57P02')],
    ['a server starting up', pgError('57P03', 'the database system is starting up')],
    ['a connection exception (class 08)', pgError('08006')],
    ['a full disk', pgError('53100', 'could not extend file: No space left on device')],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['the pool timing out', new Error('timeout exceeded when trying to connect')],
    [
      'a client after its connection failed',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    [
      'a write sent to a standby (decision 840)',
      pgError('25006', 'cannot execute INSERT in a read-only transaction'),
    ],
    [
      'a connection refused for landing on a standby (decision 840)',
      new Error('the database host is a standby (in recovery): looking for the primary'),
    ],
    ['a closed embedded instance', new Error('PGlite is closed')],
    ['a closed embedded instance under Kysely', new Error('PGlite instance is already closed.')],
    ['a cause', new Error('query failed', { cause: pgError('ECONNREFUSED') })],
    ["the disk-space guard's refusal", databaseUnavailable(diskAlmostFull)],
    [
      'an AggregateError (both address families refused)',
      Object.assign(new AggregateError([pgError('ECONNREFUSED'), pgError('ECONNREFUSED')]), {
        code: undefined,
      }),
    ],
  ])('%s is an outage', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('23505', 'duplicate key value violates unique constraint')],
    ['a syntax error', pgError('42601')],
    ['a check violation', pgError('23514')],
    ['a plain bug', new TypeError('x is undefined')],
    ['another API error', new ApiError('not_found', 'x not found')],
    ['a non-error', 'ECONNREFUSED'],
    ['null', null],
  ])('%s is not', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('a database that does not answer', () => {
  let t: TestApp;
  let who: TestAccount;
  /** A second app, as a process would be, on a PostgreSQL that refuses connections (nothing listens on its port). */
  let away: TestApp;
  let refused: DatabaseHandle | null = null;
  let checkoutPath: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { COBRO_MODE: 'sandbox' } });
    who = await t.createAccount();
    const created = await t.call(who, {
      method: 'POST',
      url: '/api/transaction',
      body: { email: 'payer@example.com', order: 'outage-1', subject: 'Outage', amount: 1000 },
    });
    expect(created.statusCode, created.body).toBe(200);
    const url = new URL(created.json().url as string);
    checkoutPath = url.pathname + url.search;
    refused = await openDatabase({
      engine: 'postgres',
      url: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`,
    });
    away = await startTestApp({
      env: { COBRO_MODE: 'sandbox' },
      sharing: { ...t, handle: refused },
    });
  });
  afterAll(async () => {
    await away.close();
    await refused?.close();
    await t.close();
  });

  const retryAfter = String(limits.dbUnavailableRetryAfterS);

  it('/readyz answers 503 with Retry-After', async () => {
    const res = await away.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe(retryAfter);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Service Unavailable' });
  });

  it('an API request answers 503 in the envelope with Retry-After, for a create with an Idempotency-Key too', async () => {
    for (const headers of [{}, { 'idempotency-key': 'outage-key' }] as Array<
      Record<string, string>
    >) {
      const res = await away.call(who, {
        method: 'POST',
        url: '/api/transaction',
        headers,
        body: { email: 'payer@example.com', order: 'outage-2', subject: 'Outage', amount: 1000 },
      });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['retry-after']).toBe(retryAfter);
      expect(res.json()).toEqual({
        status: 'failed',
        type: 'Service Unavailable',
        message_error: 'the database does not answer; retry later',
      });
    }
    const read = await away.call(who, {
      method: 'GET',
      url: '/api/wallet?currency=CLP',
      sign: true,
    });
    expect(read.statusCode, read.body).toBe(503);
  });

  it('the checkout and the dashboard answer a 503 page with Retry-After', async () => {
    const page = await away.app.inject({ method: 'GET', url: checkoutPath });
    expect(page.statusCode, page.body.slice(0, 300)).toBe(503);
    expect(page.headers['retry-after']).toBe(retryAfter);
    expect(page.body).toContain('no está disponible');
    const signIn = await dashboardBrowser(away).signIn(who);
    expect(signIn.statusCode, signIn.body.slice(0, 300)).toBe(503);
    expect(signIn.headers['retry-after']).toBe(retryAfter);
    expect(signIn.body).toContain('Servicio no disponible');
  });
});

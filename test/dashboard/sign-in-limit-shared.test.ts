// Decision 950: the sign-in forms' limit (30 posts a minute per client address, decision 835: what bounds the
// guessing of a password or of an enrolled second factor's code) was counted in each process's memory, so a
// deployment of N `cobro serve` on one PostgreSQL allowed N times it to an attacker whose posts the load balancer
// spread. The count is now kept in the database, shared by every process: here two apps on one database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardLimits } from '../../src/limits/index.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

describe.runIf(onPostgres)('the sign-in forms limit across two processes', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({ sharing: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const post = (t: TestApp, remoteAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=ana%40example.com&password=guess',
    });

  it('counts one address once across the processes', async () => {
    for (let i = 0; i < dashboardLimits.signInsPerMinute; i++)
      expect((await post(i % 2 === 0 ? a : b, '198.51.100.7')).statusCode).toBe(403);
    const refused = await post(b, '198.51.100.7');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('Demasiadas solicitudes');
    // Another address keeps its own allowance.
    expect((await post(a, '198.51.100.8')).statusCode).toBe(403);
  });
});

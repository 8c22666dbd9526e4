// A service published on https (PUBLIC_BASE_URL https://...) sends Strict-Transport-Security on every answer and
// marks the dashboard's session cookie Secure; on http it sends neither (decision 440).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { dashboardBrowser } from '../../support/dashboard.ts';
import { hstsValue } from '../../../src/platform/http/conventions.ts';

let https: TestApp;
let http: TestApp;
beforeAll(async () => {
  https = await startTestApp({
    env: {
      COBRO_MODE: 'production',
      COBRO_SECRET_KEY: 'ab'.repeat(32),
      PUBLIC_BASE_URL: 'https://pay.example.com',
    },
  });
  http = await startTestApp({ sharing: https, env: { PUBLIC_BASE_URL: 'http://127.0.0.1:8080' } });
});
afterAll(async () => {
  await http.close();
  await https.close();
});

const setCookies = (header: string | string[] | undefined) =>
  Array.isArray(header) ? header : header === undefined ? [] : [header];

describe('an https PUBLIC_BASE_URL', () => {
  it('sends HSTS on API answers, errors, pages and the dashboard', async () => {
    expect(hstsValue).toBe('max-age=31536000');
    for (const url of [
      '/api/banks?currency=clp',
      '/api/wallet',
      '/api/nowhere',
      '/dashboard/login',
      '/healthz',
    ]) {
      const res = await https.app.inject({ method: 'GET', url });
      expect(res.headers['strict-transport-security'], url).toBe(hstsValue);
      expect(
        (await http.app.inject({ method: 'GET', url })).headers['strict-transport-security'],
        url,
      ).toBeUndefined();
    }
  });

  it('marks the dashboard session cookie Secure (HttpOnly, SameSite=Strict), and not on http', async () => {
    const account = await https.createAccount('Secure merchant');
    const signedIn = await dashboardBrowser(https).signIn(account);
    const session = setCookies(signedIn.headers['set-cookie']).filter((c) =>
      c.startsWith('cobro_session='),
    );
    expect(session.length).toBeGreaterThan(0);
    for (const cookie of session) expect(cookie).toMatch(/; Secure/i);
    const plain = await dashboardBrowser(http).signIn(account);
    for (const cookie of setCookies(plain.headers['set-cookie']))
      expect(cookie).not.toMatch(/; Secure/i);
  });
});

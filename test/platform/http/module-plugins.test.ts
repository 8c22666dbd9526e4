// Modules are registered as encapsulated plugins (src/app.ts): every route of every module must still inherit the
// root instance's authentication, input guards, error handler and idempotency hooks, and still be documented.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appModules } from '../../../src/modules/index.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { modulesRecordingRoutes } from '../../support/route-recorder.ts';

let t: TestApp;
let account: TestAccount;
/** Every route as the router holds it, collected while the modules register. */
const routes: { method: string; url: string; auth: string }[] = [];

beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('modules as encapsulated plugins', () => {
  it('registers one plugin per module with routes, none skipping encapsulation', async () => {
    const named = appModules.filter((m) => m.routes !== undefined).map((m) => m.name);
    const tree = t.app.printPlugins();
    for (const name of named) expect(tree).toContain(name);
  });

  it('documents every /api route in the OpenAPI document', async () => {
    const doc = (await t.call(null, { method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const probe = await startProbe();
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([p, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
      ),
    );
    const api = probe.filter(
      (r) => r.url.startsWith('/api/') && r.url !== '/api/openapi.json' && r.method !== 'HEAD',
    );
    expect(api.length).toBeGreaterThan(20);
    const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\/$/, '');
    expect(
      api
        .map((r) => `${r.method} ${openApiPath(r.url)}`)
        .filter((k) => !documented.has(k) && !documented.has(`${k}/`)),
    ).toEqual([]);
  });

  it('asks every authenticated /api route of every module for a token, in the seed envelope', async () => {
    const probe = await startProbe();
    const guarded = probe.filter(
      (r) => r.url.startsWith('/api/') && r.auth !== 'none' && r.method !== 'HEAD',
    );
    expect(guarded.length).toBeGreaterThan(20);
    for (const r of guarded) {
      const res = await t.app.inject({
        method: r.method as 'GET',
        url: r.url.replace(/:\w+/g, 'x1'),
      });
      expect({
        route: `${r.method} ${r.url}`,
        status: res.statusCode,
        body: res.json(),
      }).toMatchObject({
        status: 401,
        body: { status: 'failed', type: 'Unauthorized', message_error: 'waiting token public' },
      });
    }
  });

  it('runs the input guards and the idempotency hooks inside a module', async () => {
    // A NUL character is refused by the root's input guard before the transactions module sees it.
    const nul = await t.call(account, {
      method: 'POST',
      url: '/api/transaction',
      body: { email: 'p@e.cl', order: 'o\u0000', subject: 's', amount: 1000 },
    });
    expect(nul.statusCode).toBe(400);
    // The same Idempotency-Key replays the stored answer of a module's route.
    const body = { email: 'p@e.cl', order: 'idem-1', subject: 's', amount: 1000 };
    const headers = { 'idempotency-key': 'module-plugins-1' };
    const first = await t.call(account, { method: 'POST', url: '/api/transaction', body, headers });
    const again = await t.call(account, { method: 'POST', url: '/api/transaction', body, headers });
    expect(first.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
  });
});

/** A second app over the same database whose routes are recorded as the modules register them. */
async function startProbe(): Promise<readonly { method: string; url: string; auth: string }[]> {
  if (routes.length > 0) return routes;
  // Each module's own instance gets the recording hook first, so it sees exactly the routes that module adds.
  const modules = modulesRecordingRoutes((r) => {
    const methods = Array.isArray(r.method) ? r.method : [r.method];
    const auth = r.config?.auth ?? (r.url.startsWith('/api') ? 'token' : 'none');
    for (const method of methods) routes.push({ method, url: r.url, auth });
  });
  const probe = await startTestApp({ sharing: t, modules });
  await probe.close();
  return routes;
}

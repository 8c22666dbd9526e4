// Issue 14 point 5: a fast-check fuzz of every state-changing /api route, found from the app itself (an onRoute
// hook on each module), so a route added later is fuzzed with no change here. Each request carries a valid token
// and Sign; its body is random JSON or the route's own fields filled with hostile values. Properties: no answer is
// a 5xx, and a refused request (HTTP 4xx, or 200 with status "failed") leaves every table exactly as it was.
// FUZZ_RUNS sets the runs per route (default 10); a failure prints fast-check's seed and path to replay it.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseDigest } from '../support/db-digest.ts';
import { modulesRecordingRoutes } from '../support/route-recorder.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';

interface RouteInfo {
  readonly method: string;
  readonly url: string;
  readonly fields: readonly string[];
}

const runsPerRoute = Number(process.env.FUZZ_RUNS ?? 10);
const routes: RouteInfo[] = [];
let t: TestApp;
let merchant: TestAccount;
let clientId: string;

const recordingModules = modulesRecordingRoutes((r) => {
  const methods = Array.isArray(r.method) ? r.method : [r.method];
  const body = (r.schema as { body?: { properties?: Record<string, unknown> } } | undefined)?.body;
  for (const method of methods) {
    if (['POST', 'PUT', 'DELETE', 'PATCH'].includes(method) && r.url.startsWith('/api')) {
      routes.push({ method, url: r.url, fields: Object.keys(body?.properties ?? {}) });
    }
  }
});

const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e308',
    'NaN',
    'null',
    'true',
    '99999999999999999999',
    '../../etc/passwd',
    "'; DROP TABLE accounts; --",
    '\u0000',
    '\uD800',
    'ñandú ☃',
    'a'.repeat(5000),
    1e308,
    -1,
    0,
    2 ** 53,
    1.5,
    true,
    false,
    null,
    [],
    {},
    { $ne: 1 },
  ),
);

function bodyFor(route: RouteInfo) {
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(fc.constantFrom(...(route.fields.length > 0 ? route.fields : ['x'])), hostile, {
      maxKeys: Math.max(1, route.fields.length),
    }),
  );
}

function pathFor(route: RouteInfo) {
  const param = fc.oneof(
    fc.constant(clientId),
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.constantFrom('0', 'trx', 'ma%2F..', '%00'),
  );
  const names = route.url.match(/:\w+/g) ?? [];
  return fc.tuple(...names.map(() => param)).map((values) => {
    let url = route.url;
    names.forEach((name, i) => {
      url = url.replace(name, encodeURIComponent(values[i]!));
    });
    return url;
  });
}

beforeAll(async () => {
  t = await startTestApp({ modules: recordingModules });
  merchant = await t.createAccount('Fuzzed');
  const created = await t.call(merchant, {
    method: 'POST',
    url: '/api/maclient',
    body: {
      email: 'a@b.cl',
      name: 'n',
      phone: '1',
      bank: { sbif: '0001', type: '1', num: '1', rut: '111111111' },
    },
  });
  clientId = created.json().id;
}, 120_000);
afterAll(async () => {
  await t.close();
});

describe('fuzz of every state-changing route', () => {
  it('finds the routes from the app', () => {
    const names = routes.map((r) => `${r.method} ${r.url}`);
    expect(names).toContain('POST /api/transaction');
    expect(names).toContain('PUT /api/maclient/:id');
    expect(names).toContain('POST /api/wallet/payout');
  });

  it('answers no 5xx and writes nothing on a refusal', async () => {
    const unique = [
      ...new Map(routes.map((r) => [`${r.method} ${r.url.replace(/\/$/, '')}`, r])).values(),
    ];
    let requests = 0;
    let refusals = 0;
    for (const route of unique) {
      let before = await databaseDigest(t.ctx.db);
      await fc.assert(
        fc.asyncProperty(pathFor(route), bodyFor(route), async (url, body) => {
          const res = await t.call(merchant, {
            method: route.method as 'POST',
            url,
            body,
            sign: true,
          });
          requests++;
          expect(
            res.statusCode,
            `${route.method} ${url} ${JSON.stringify(body).slice(0, 200)} -> ${res.body.slice(0, 300)}`,
          ).toBeLessThan(500);
          let failed = res.statusCode >= 400;
          try {
            failed ||= (res.json() as { status?: unknown }).status === 'failed';
          } catch {
            failed = true;
          }
          const after = await databaseDigest(t.ctx.db);
          if (failed) {
            refusals++;
            expect(
              after,
              `${route.method} ${url} was refused (${res.body.slice(0, 200)}) but changed the database`,
            ).toBe(before);
          }
          before = after;
        }),
        { numRuns: runsPerRoute },
      );
    }
    console.info(
      `route fuzz: ${unique.length} routes, ${requests} requests, ${refusals} refusals, 0 x 5xx, nothing written on a refusal`,
    );
  }, 600_000);
});

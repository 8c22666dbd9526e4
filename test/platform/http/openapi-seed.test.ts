// The OpenAPI document lists every route of the seed's "Endpoints" section with its request and response schemas
// and the seed's security (supplement §2.1-2.2); everything else under /api beyond the seed and the reference is
// tagged Extensions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type Auth = 'none' | 'token' | 'sign';
const seedRoutes: ReadonlyArray<readonly [string, string, Auth]> = [
  ['get', '/api/banks', 'none'],
  ['get', '/api/paymentmethods', 'none'],
  ['post', '/api/wallet/payout', 'sign'],
  ['post', '/api/wallet/withdraw', 'sign'],
  ['get', '/api/wallet', 'sign'],
  ['get', '/api/wallet/list', 'sign'],
  ['get', '/api/wallet/{id}', 'sign'],
  ['get', '/api/payout/{id}', 'sign'],
  ['get', '/api/payoutv3/{id}', 'sign'],
  ['post', '/api/maclient', 'token'],
  ['get', '/api/maclient/{id}', 'token'],
  ['put', '/api/maclient/{id}', 'sign'],
  ['delete', '/api/maclient/{id}', 'token'],
  ['post', '/api/maaffiliation', 'token'],
  ['get', '/api/maaffiliation/{id}', 'token'],
  ['delete', '/api/maaffiliation/{id}', 'token'],
  ['post', '/api/transaction', 'token'],
  ['post', '/api/event', 'token'],
  ['get', '/api/event/{id}', 'token'],
  ['post', '/api/conciliation', 'token'],
];
/** Documented by the reference (§1.2, §1.3) though the seed marks them "not shown": not Cobro's own additions. */
const referenceRoutes = new Set([
  'get /api/transaction',
  'get /api/transaction/{id}',
  'post /api/mall',
  'get /api/mall/{id}',
]);
/** Subscriptions and consumption subscriptions (reference §7, §8). */
const subscriptionReferenceRoutes = [
  'post /api/suclient',
  'get /api/suclient/customers',
  'get /api/suclient/{id}',
  'put /api/suclient/{id}',
  'delete /api/suclient/{id}',
  'post /api/suplan',
  'get /api/suplan/plans',
  'get /api/suplan/{id}',
  'post /api/sususcription',
  'get /api/sususcription',
  'get /api/sususcriptionv3',
  'get /api/sususcription/{id}',
  'delete /api/sususcription/{id}',
  'post /api/suinscriptionscards',
  'post /api/suscriptionsdeletecards',
  'post /api/sutransaction',
];
for (const route of subscriptionReferenceRoutes) referenceRoutes.add(route);
/** Nullification (reference §3). */
for (const route of ['post /api/nullification', 'get /api/nullification/{id}'])
  referenceRoutes.add(route);
/** Escrow (reference §2.1). */
referenceRoutes.add('post /api/escrow');
const security = { none: [], token: [{ bearer: [] }], sign: [{ bearer: [], sign: [] }] } as const;

interface Operation {
  tags?: string[];
  security?: unknown;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

describe('GET /api/openapi.json', () => {
  it('lists every seed route with its security, request body and 200 schema', async () => {
    const doc = (await t.call(null, { method: 'GET', url: '/api/openapi.json' })).json();
    for (const [method, path, auth] of seedRoutes) {
      const op = doc.paths[path]?.[method] as Operation | undefined;
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op!.security, `${method} ${path}`).toEqual(security[auth]);
      expect(op!.tags, `${method} ${path}`).not.toContain('Extensions');
      expect(
        op!.responses['200']?.content?.['application/json']?.schema,
        `${method} ${path} 200`,
      ).toBeDefined();
      if (method === 'post' || method === 'put') {
        expect(
          op!.requestBody?.content['application/json']?.schema,
          `${method} ${path} body`,
        ).toBeDefined();
      }
      if (auth !== 'none') expect(op!.responses['401'], `${method} ${path} 401`).toBeDefined();
    }
  });

  it('tags every other /api route Extensions', async () => {
    const doc = (await t.call(null, { method: 'GET', url: '/api/openapi.json' })).json();
    const seed = new Set(seedRoutes.map(([m, p]) => `${m} ${p}`));
    const others: string[] = [];
    for (const [path, ops] of Object.entries(
      doc.paths as Record<string, Record<string, Operation>>,
    )) {
      if (!path.startsWith('/api/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method} ${path}`;
        if (seed.has(key) || referenceRoutes.has(key)) continue;
        // The reference's trailing-slash spellings carry their operation's tags (decision 440).
        if ((op as { 'x-cobro-alias-of'?: string })['x-cobro-alias-of'] !== undefined) continue;
        others.push(key);
        expect(op.tags, key).toEqual(['Extensions']);
      }
    }
    expect(others).toEqual(
      expect.arrayContaining([
        'post /api/sandbox/clock/advance',
        'post /api/sandbox/wallet/credit',
        'get /api/notifications',
        'get /api/account',
      ]),
    );
  });
});

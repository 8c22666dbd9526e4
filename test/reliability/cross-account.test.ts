// Issue 14 point 5: the cross-account matrix. Account A owns one of every resource (fixtures.ts); account B, with
// its own valid token, Sign and Cobro-Signature, tries every route that takes an id, in the path or in the body,
// with A's ids. The routes are found from the app itself (an onRoute hook on each module, as in the route fuzz),
// so a route added later is tried too: a path id it cannot map to a fixture, or a body field that looks like an
// id and is not in the table below, fails the test by name. Properties: a read answers 404 in the seed's envelope;
// a write is refused; and after every attempt an md5 over every row of every table is unchanged (no row, no
// posting, no callback written). Controls show the attempts were meaningful: A reads its own ids with 200, and B's
// same body with its own ids is not refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { databaseDigest } from '../support/db-digest.ts';
import { dashboardBrowser, type DashboardBrowser } from '../support/dashboard.ts';
import { modulesRecordingRoutes } from '../support/route-recorder.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { setEscrow } from '../../src/modules/escrow/flag.ts';
import { buildFixtures, type AccountFixtures } from './fixtures.ts';
import { callTheRest, expectEveryRouteAudited } from './audit-calls.ts';

interface Route {
  readonly method: string;
  readonly url: string;
  readonly fields: readonly string[];
}
type Fixture = keyof AccountFixtures;

/** The resource a path id names, by the route's first segment after /api or /dashboard. */
const pathResource: Record<string, Fixture> = {
  transaction: 'transaction',
  transactions: 'transaction',
  nullification: 'nullification',
  payout: 'payout',
  payoutv3: 'payout',
  wallet: 'walletMovement',
  maclient: 'maclient',
  maaffiliation: 'maaffiliation',
  event: 'event',
  notifications: 'notification',
  callbacks: 'notification',
  suclient: 'suclient',
  suplan: 'suplan',
  sususcription: 'sususcription',
  subscriptions: 'sususcription',
  mall: 'mall',
  // Names a dashboard page or a later route may take for the same resources.
  payouts: 'payout',
  plans: 'suplan',
  refunds: 'nullification',
  nullifications: 'nullification',
  escrow: 'nullification',
  malls: 'mall',
  events: 'event',
  disputes: 'dispute',
  // The sandbox's one route with a path id: its acquirer's resolution of a dispute.
  sandbox: 'dispute',
};

/** Valid bodies for writes that take a path id, so B's attempt gets past validation to the owner check. */
const pathWriteBodies: Record<string, unknown> = {
  'PUT /api/maclient/:id': {
    name: 'Hijacked',
    bank: { sbif: '0001', type: '1', num: '99999999', rut: '111111111' },
  },
  'PUT /api/suclient/:id': { name: 'Hijacked', email: 'hijack@example.com' },
  'POST /api/disputes/:id/evidence': { text: 'Hijacked' },
  'POST /api/sandbox/disputes/:id/resolve': { outcome: 'won' },
};

/** Body fields that name another resource: B sends A's id in them. Each case also runs with B's own ids (control). */
interface BodyCase {
  readonly route: string;
  readonly field: string;
  readonly body: (ids: AccountFixtures, own: AccountFixtures, n: number) => unknown;
  readonly control?: false;
  /** For an answer that refuses item by item in the seed's shape instead of as a whole. */
  readonly refuses?: (json: Record<string, unknown>) => boolean;
}
const sale = (n: number) => ({
  email: 'payer@example.com',
  order: `x-${n}`,
  subject: 'cross',
  amount: 1_000,
});
const bodyCases: BodyCase[] = [
  {
    route: 'POST /api/nullification',
    field: 'id',
    body: (ids) => ({ id: ids.nullification, amount: 100, subject: 'cross refund' }),
  },
  {
    route: 'POST /api/transaction',
    field: 'marketplace',
    body: (ids, _own, n) => ({ ...sale(n), marketplace: ids.membershipToken }),
  },
  {
    route: 'POST /api/transaction',
    field: 'event',
    body: (ids, _own, n) => ({ ...sale(n), event: ids.event }),
  },
  {
    route: 'POST /api/maaffiliation',
    field: 'affiliation',
    body: (ids, _own, n) => ({
      name: `m-${n}`,
      percentage: '10',
      affiliation: [[ids.maclient, 90]],
    }),
  },
  {
    route: 'POST /api/sususcription',
    field: 'plan',
    body: (ids, own) => ({ plan: ids.suplan, client: own.suclient }),
  },
  {
    route: 'POST /api/sususcription',
    field: 'client',
    body: (ids, own) => ({ plan: own.suplan, client: ids.suclient }),
  },
  {
    route: 'POST /api/suinscriptionscards',
    field: 'suscription',
    body: (ids) => ({ suscription: ids.sususcription }),
  },
  {
    route: 'POST /api/sutransaction',
    field: 'suscription',
    body: (ids, _own, n) => ({ suscription: ids.sususcription, amount: 1_000, order: `c-${n}` }),
  },
  {
    route: 'POST /api/sutransaction',
    field: 'card',
    body: (ids, own, n) => ({
      suscription: own.sususcription,
      card: ids.suCard,
      amount: 1_000,
      order: `d-${n}`,
    }),
  },
  {
    route: 'POST /api/sutransaction',
    field: 'marketplace',
    control: false,
    body: (ids, own, n) => ({
      suscription: own.sususcription,
      marketplace: ids.membershipToken,
      amount: 1_000,
      order: `e-${n}`,
    }),
  },
  {
    route: 'POST /api/mall',
    field: 'merchant',
    body: (ids, _own, n) => ({
      email: 'payer@example.com',
      payment: 1,
      order: `mall-${n}`,
      urlreturn: 'https://shop.example.com/return',
      merchant: [[ownToken, 3_000, 'item', ids.event, `ml-${n}`]],
    }),
  },
  {
    route: 'POST /api/escrow',
    field: 'transactions',
    body: (ids) => ({ transactions: [ids.nullification] }),
    refuses: (json) =>
      (json.transactions as Array<{ status: string }> | undefined)?.every(
        (item) => item.status === 'not found',
      ) === true,
  },
  {
    route: 'POST /api/sandbox/disputes',
    field: 'transaction_id',
    body: (ids) => ({ transaction_id: ids.nullification, amount: 100, reason: 'cross' }),
  },
  // Last: the control removes B's card, which the cases above charge; so the alias's control would find it gone.
  {
    route: 'POST /api/suscriptionsdeletecards',
    field: 'card',
    body: (ids) => ({ card: ids.suCard }),
  },
  {
    route: 'POST /api/suscriptionsdeletecards',
    field: 'suscription',
    body: (ids) => ({ suscription: ids.suCard }),
    control: false,
  },
];
/** Body fields that look like ids but are the caller's own names or public data, with why. */
const notIds: Record<string, string> = {
  'POST /api/event event': "the merchant's own code for a new event",
  'POST /api/event affiliation': 'e-mail addresses and percentages',
  'POST /api/event affiliaction': "the seed's misspelt alias of affiliation",
  'POST /api/sususcription coupon': 'a coupon code: no coupon resource exists',
};
const idLike =
  /^(ids?|plans?|clients?|suscriptions?|subscriptions?|cards?|marketplaces?|events?|affiliations?|affiliaction|coupons?|merchants?|transactions?|payouts?|stores?|nullifications?|refunds?)$|_ids?$/;

const routes: Route[] = [];
const recordingModules = modulesRecordingRoutes((r) => {
  const body = (r.schema as { body?: { properties?: Record<string, unknown> } } | undefined)?.body;
  for (const method of Array.isArray(r.method) ? r.method : [r.method]) {
    if (method !== 'HEAD' && /^\/(api|dashboard)\//.test(r.url))
      routes.push({
        method,
        url: r.url.replace(/\/$/, ''),
        fields: Object.keys(body?.properties ?? {}),
      });
  }
});

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
let ids: AccountFixtures;
let own: AccountFixtures;
let ownToken: string;
let dashboardB: DashboardBrowser;

beforeAll(async () => {
  t = await startTestApp({ modules: recordingModules });
  a = await t.createAccount('Cuenta A');
  b = await t.createAccount('Cuenta B');
  ownToken = b.publicToken;
  // Escrow accounts both, so B's POST /api/escrow is served (not refused as "not escrow") and A's sales are held.
  for (const who of [a, b]) expect((await setEscrow(t.ctx, who.id, true)).ok).toBe(true);
  ids = await buildFixtures(t, a, 'a');
  own = await buildFixtures(t, b, 'b');
  dashboardB = dashboardBrowser(t);
  await dashboardB.signIn(b);
}, 120_000);
const tried = { reads: 0, lists: 0, writes: 0, bodies: 0, audited: 0 };
afterAll(async () => {
  console.info(
    `cross-account: ${tried.reads} reads by path id, ${tried.lists} lists, ${tried.writes} writes by path id, ${tried.bodies} body ids: all refused, nothing written; ${tried.audited} state-changing routes audited`,
  );
  await t.close();
});

const key = (r: Route) => `${r.method} ${r.url}`;
const pathRoutes = () => [
  ...new Map(routes.filter((r) => r.url.includes('/:')).map((r) => [key(r), r])).values(),
];

function fixtureOf(route: Route): Fixture | undefined {
  return pathResource[route.url.split('/')[2]!];
}

function withId(route: Route, id: string): string {
  return route.url.replace(/:\w+/, encodeURIComponent(id));
}

async function asB(route: Route, url: string, body: unknown): Promise<LightMyRequestResponse> {
  if (route.url.startsWith('/dashboard'))
    return route.method === 'GET' ? dashboardB.get(url) : dashboardB.post(url, {});
  return t.call(b, {
    method: route.method as 'GET',
    url,
    body,
    sign: true,
    signature: route.method !== 'GET',
  });
}

function refused(res: LightMyRequestResponse, c?: BodyCase): boolean {
  if (res.statusCode >= 400 && res.statusCode < 500) return true;
  try {
    const json = res.json() as Record<string, unknown>;
    return json.status === 'failed' || (c?.refuses?.(json) ?? false);
  } catch {
    return false;
  }
}

describe('cross-account matrix', () => {
  it('maps every route that takes a path id to a resource, and every id-like body field to a case', () => {
    expect(
      pathRoutes()
        .filter((r) => fixtureOf(r) === undefined)
        .map(key),
      'routes with a path id and no fixture: add them to pathResource',
    ).toEqual([]);
    const covered = new Set(bodyCases.map((c) => `${c.route} ${c.field}`));
    const missing = routes
      .filter((r) => r.url.startsWith('/api') && r.method !== 'GET')
      .flatMap((r) => r.fields.filter((f) => idLike.test(f)).map((f) => `${key(r)} ${f}`))
      .filter((name) => !covered.has(name) && notIds[name] === undefined);
    expect(
      [...new Set(missing)],
      'body fields that look like ids: add a case to bodyCases or a reason to notIds',
    ).toEqual([]);
    expect(pathRoutes().length).toBeGreaterThan(20);
  });

  it("answers 404 in the seed's envelope to every read of another account's id, and 200 to its owner", async () => {
    const before = await databaseDigest(t.ctx.db);
    for (const route of pathRoutes().filter((r) => r.method === 'GET')) {
      const fixture = fixtureOf(route)!;
      const url = withId(route, ids[fixture]);
      const res = await asB(route, url, undefined);
      expect(res.statusCode, `${key(route)} as B: ${res.body.slice(0, 200)}`).toBe(404);
      if (route.url.startsWith('/api'))
        expect(res.json()).toMatchObject({
          status: 'failed',
          type: 'Not Found',
          message_error: expect.any(String),
        });
      const mine = await asB(route, withId(route, own[fixture]), undefined);
      expect(
        mine.statusCode,
        `${key(route)} with B's own ${fixture}: ${mine.body.slice(0, 200)}`,
      ).toBe(200);
    }
    expect(await databaseDigest(t.ctx.db)).toBe(before);
    tried.reads = pathRoutes().filter((r) => r.method === 'GET').length;
  });

  it("shows none of A's ids in any list B reads", async () => {
    const secrets = Object.values(ids).filter((v) => v.length >= 8);
    for (const route of routes.filter(
      (r) => r.method === 'GET' && !r.url.includes('/:') && r.url.startsWith('/api'),
    )) {
      const res = await asB(route, route.url, undefined);
      for (const id of secrets)
        expect(res.body.includes(id), `${key(route)} shows A's ${id}`).toBe(false);
      tried.lists++;
    }
  });

  it("refuses every write to another account's path id with 404 and writes nothing", async () => {
    for (const route of pathRoutes().filter((r) => r.method !== 'GET')) {
      const before = await databaseDigest(t.ctx.db);
      const res = await asB(
        route,
        withId(route, ids[fixtureOf(route)!]),
        pathWriteBodies[key(route)],
      );
      expect(res.statusCode, `${key(route)} as B: ${res.body.slice(0, 200)}`).toBe(404);
      if (route.url.startsWith('/api'))
        expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Found' });
      expect(await databaseDigest(t.ctx.db), `${key(route)} as B changed the database`).toBe(
        before,
      );
      tried.writes++;
    }
  });

  it("refuses every body naming another account's resource and writes nothing; the same body with B's own ids works", async () => {
    let n = 0;
    for (const c of bodyCases) {
      const [method, url] = c.route.split(' ') as [string, string];
      const route: Route = { method, url, fields: [] };
      const before = await databaseDigest(t.ctx.db);
      const res = await asB(route, url, c.body(ids, own, ++n));
      expect(
        refused(res, c),
        `${c.route} with A's ${c.field} as B was not refused: ${res.body.slice(0, 300)}`,
      ).toBe(true);
      expect(res.statusCode, `${c.route} ${c.field}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
      expect(
        await databaseDigest(t.ctx.db),
        `${c.route} with A's ${c.field} changed the database`,
      ).toBe(before);
      if (c.control !== false) {
        const mine = await asB(route, url, c.body(own, own, ++n));
        expect(
          refused(mine, c),
          `${c.route} with B's own ${c.field} (control) was refused: ${mine.body.slice(0, 300)}`,
        ).toBe(false);
      }
    }
    tried.bodies = bodyCases.length;
  });

  // Issue 36: after the matrix (it changes A's resources), every state-changing route leaves an audit row.
  it('records an audit row for every state-changing route, in a chain that verifies', async () => {
    await callTheRest(t, a, ids);
    const writes = routes.filter((r) => r.url.startsWith('/api') && r.method !== 'GET');
    tried.audited = await expectEveryRouteAudited(t, a, writes.map(key));
  });
});

// A subscription list page reads its rows' clients, plans, cards, charges, cycles and logs one statement per kind
// per chunk (src/modules/subscriptions/subscription-parts.ts), not per row: the statements a page costs do not
// grow with its rows, every item is exactly the one the per-row reads build (rows, order and limits included), and
// on PGlite another request is answered while a page is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { limits, subscriptionLimits } from '../../../src/limits/index.ts';
import { findPlan } from '../../../src/modules/subscriptions/repository.ts';
import {
  readParts,
  type SubscriptionPartsWithCycles,
} from '../../../src/modules/subscriptions/subscription-parts.ts';
import {
  findSubscription,
  liveCards,
  statusLogs,
  subscriptionCharges,
  subscriptionCycles,
} from '../../../src/modules/subscriptions/subscription-repository.ts';
import {
  subscriptionV1View,
  subscriptionV3View,
  subscriptionView,
} from '../../../src/modules/subscriptions/subscription-views.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { StatementCounter } from '../../support/statement-counter.ts';
import { createPlan, createSuClient, decliningCard, subscribedWithCard } from './helpers.ts';

const counter = new StatementCounter();
let t: TestApp;
let merchant: TestAccount;
const day = 'date_init=2026-03-10&date_end=2026-03-10';
/** Past one chunk: the clones below are on the next day. */
const bigDay = 'date_init=2026-03-11&date_end=2026-03-11';
const bigPage = limits.dbReadChunkRowsMax + 40;
let manyCards = '';

beforeAll(async () => {
  t = await startTestApp({ dbPlugin: counter });
  merchant = await t.createAccount('Listas');
  const monthly = await createPlan(t, merchant, {
    name: 'Mensual',
    amount: 9990,
    interval: 'month',
    retries_max: 2,
  });
  const variable = await createPlan(t, merchant, { name: 'Variable', type: 'variable' });
  const call = (method: 'POST' | 'DELETE', url: string, body?: Record<string, unknown>) =>
    t.call(merchant, { method, url, sign: true, body });
  // 30 subscriptions of every kind: active with a card, one that declines its cycles, registered and deleted.
  const active: string[] = [];
  for (let i = 0; i < 12; i++) active.push((await subscribedWithCard(t, merchant, monthly)).id);
  for (let i = 0; i < 3; i++) await subscribedWithCard(t, merchant, monthly, {}, decliningCard);
  for (let i = 0; i < 15; i++) {
    const client = await createSuClient(t, merchant, { email: `r${i}@example.com` });
    const id = (
      await call('POST', '/api/sususcription', { plan: variable, client, amount: 1000 + i })
    ).json().id as string;
    if (i % 5 === 0)
      expect((await call('DELETE', `/api/sususcription/${id}`)).statusCode).toBe(200);
  }
  // Two cycles paid (declined and retried for the declining cards), still on the list's day in local time.
  const advanced = await t.call(merchant, {
    method: 'POST',
    url: '/api/sandbox/clock/advance',
    body: { days: 62 },
  });
  expect(advanced.statusCode, advanced.body).toBe(200);
  // One subscription with more live cards than a view shows, and one of them removed.
  manyCards = active[3]!;
  await sql`INSERT INTO su_cards (id, account_id, client_id, subscription_id, brand, last4, processor_token, created_at)
    SELECT 'caextra' || lpad(g::text, 4, '0'), account_id, client_id, subscription_id, brand, lpad(g::text, 4, '0'), processor_token,
      created_at + g * interval '1 minute'
    FROM su_cards CROSS JOIN generate_series(1, ${subscriptionLimits.cardsPerSubscriptionMax + 5}::int) g
    WHERE subscription_id = ${manyCards}`.execute(t.ctx.db);
  await sql`UPDATE su_cards SET deleted_at = now() WHERE id = 'caextra0024'`.execute(t.ctx.db);
  // More than one chunk of subscriptions the next day: clones of the 30, each with its source's logs and cards.
  await sql`INSERT INTO su_subscriptions (id, account_id, client_id, plan_id, status, amount_minor, coupon, created_at, activated_at, ended_at)
    SELECT 'suclone' || lpad(g::text, 15, '0'), s.account_id, s.client_id, s.plan_id, s.status, s.amount_minor, s.coupon,
      '2026-03-11T15:00:00Z'::timestamptz, s.activated_at, s.ended_at
    FROM generate_series(1, ${bigPage}::int) g
    JOIN (SELECT *, row_number() OVER (ORDER BY seq) - 1 AS k FROM su_subscriptions WHERE account_id = ${merchant.id}) s ON s.k = g % 30
    ORDER BY g`.execute(t.ctx.db);
  const sources = sql`SELECT 'suclone' || lpad(g::text, 15, '0') AS clone, g, s.id AS source
    FROM generate_series(1, ${bigPage}::int) g
    JOIN (SELECT id, row_number() OVER (ORDER BY seq) - 1 AS k FROM su_subscriptions WHERE account_id = ${merchant.id} AND id NOT LIKE 'suclone%') s ON s.k = g % 30`;
  await sql`INSERT INTO su_status_logs (subscription_id, changed_at, initial_status, final_status)
    SELECT m.clone, l.changed_at, l.initial_status, l.final_status FROM (${sources}) m JOIN su_status_logs l ON l.subscription_id = m.source
    ORDER BY m.g, l.seq`.execute(t.ctx.db);
  await sql`INSERT INTO su_cards (id, account_id, client_id, subscription_id, brand, last4, processor_token, created_at, deleted_at)
    SELECT 'caclone' || m.g || '-' || c.id, c.account_id, c.client_id, m.clone, c.brand, c.last4, c.processor_token, c.created_at, c.deleted_at
    FROM (${sources}) m JOIN su_cards c ON c.subscription_id = m.source ORDER BY m.g, c.seq`.execute(
    t.ctx.db,
  );
}, 180_000);
afterAll(async () => {
  await t?.close();
});

/**
 * The parts as the per-row reads gave them before the batched reads: one statement per kind per subscription. Read
 * once per subscription and kept: nothing writes after beforeAll, so a second read would return the same rows, and
 * the first two tests compare the same 570 subscriptions (a read of each costs 7 statements).
 */
const perRowRead = new Map<string, Promise<SubscriptionPartsWithCycles>>();
function perRowParts(id: string): Promise<SubscriptionPartsWithCycles> {
  let parts = perRowRead.get(id);
  if (parts === undefined) perRowRead.set(id, (parts = readPerRow(id)));
  return parts;
}

async function readPerRow(id: string): Promise<SubscriptionPartsWithCycles> {
  const db = t.ctx.db;
  const row = (await findSubscription(db, merchant.id, id))!;
  const client = await db
    .selectFrom('su_clients')
    .selectAll()
    .where('id', '=', row.client_id)
    .executeTakeFirstOrThrow();
  const plan = (await findPlan(db, merchant.id, row.plan_id))!;
  return {
    row,
    client,
    plan,
    cards: await liveCards(db, id),
    charges: await subscriptionCharges(db, id),
    cycles: await subscriptionCycles(db, id),
    logs: await statusLogs(db, id),
  };
}

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

async function list(path: string) {
  const res = await t.call(merchant, { method: 'GET', url: path, sign: true });
  expect(res.statusCode, res.body).toBe(200);
  return res.json()[0].subscriptions as Array<{ id: string }>;
}

async function statementsOf(path: string): Promise<number> {
  await list(path); // what a process learns once (a route's first call) is not the page's cost
  counter.count = 0;
  await list(path);
  return counter.count;
}

describe('a subscription list page', () => {
  it('reads the same rows in the same order as the per-row reads, limits included', async () => {
    const rows = await t.ctx.db
      .selectFrom('su_subscriptions')
      .selectAll()
      .where('account_id', '=', merchant.id)
      .orderBy('seq')
      .execute();
    expect(rows.length).toBe(30 + bigPage);
    const kinds = {
      cards: new Set<number>(),
      charges: new Set<number>(),
      cycles: new Set<number>(),
      logs: new Set<number>(),
    };
    for (let start = 0; start < rows.length; start += limits.dbReadChunkRowsMax) {
      const batch = await readParts(
        t.ctx.db,
        merchant.id,
        rows.slice(start, start + limits.dbReadChunkRowsMax),
        true,
      );
      for (const parts of batch) {
        const expected = await perRowParts(parts.row.id);
        const drop = <Row extends object>(list: readonly Row[], ...keys: string[]) =>
          list.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !keys.includes(k))));
        expect(
          {
            ...parts,
            cards: drop(parts.cards, 'rank_in_subscription'),
            charges: drop(parts.charges, 'rank_in_subscription', 'subscription_id', 'seq'),
            cycles: drop(parts.cycles, 'rank_in_subscription'),
            logs: drop(parts.logs, 'rank_in_subscription'),
          },
          parts.row.id,
        ).toEqual(expected);
        for (const k of ['cards', 'charges', 'cycles', 'logs'] as const)
          kinds[k].add(parts[k].length);
      }
    }
    // The data holds what the comparison is about: empty and full groups of every kind, and a card list cut short.
    expect(Math.max(...kinds.cards)).toBe(subscriptionLimits.cardsPerSubscriptionMax);
    for (const k of ['cards', 'charges', 'cycles'] as const) expect(kinds[k].has(0), k).toBe(true);
    expect(Math.max(...kinds.charges)).toBeGreaterThanOrEqual(3);
    expect(Math.max(...kinds.cycles)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...kinds.logs)).toBeGreaterThanOrEqual(2);
  });

  it('answers v1, v3 and each subscription as the per-row reads build them', async () => {
    for (const [query, count] of [
      [day, 30],
      [bigDay, bigPage],
    ] as const) {
      const v1 = await list(`/api/sususcription?${query}&per_page=4000`);
      const v3 = await list(`/api/sususcriptionv3?${query}&per_page=4000`);
      expect(v1).toHaveLength(count);
      const perRow = [];
      for (const { id } of v1) perRow.push(await perRowParts(id));
      expect(v1).toEqual(asJson(perRow.map((p) => subscriptionV1View(t.ctx, p))));
      expect(v3).toEqual(asJson(perRow.map((p) => subscriptionV3View(t.ctx, p))));
      if (count === 30) {
        expect(v3.find((s) => s.id === manyCards)).toMatchObject({
          active_cards: { last_4_digits: 'XXXXXXXXXXXX0025' },
        });
        for (const parts of perRow) {
          const one = await t.call(merchant, {
            method: 'GET',
            url: `/api/sususcription/${parts.row.id}`,
            sign: true,
          });
          expect(one.json()).toEqual(asJson(subscriptionView(t.ctx, parts)));
        }
      }
    }
    // A later page starts where the one before ended, across a chunk's end.
    const firstPage = await list(`/api/sususcription?${bigDay}&per_page=300`);
    const secondPage = await list(`/api/sususcription?${bigDay}&per_page=300&page=2`);
    const whole = await list(`/api/sususcription?${bigDay}&per_page=4000`);
    expect([...firstPage, ...secondPage].map((s) => s.id)).toEqual(whole.map((s) => s.id));
  });

  it('lets a request that arrives during a page of more than one chunk finish first', async () => {
    // Both routes answered once first: a route's first call compiles its schemas, which is not what this is about.
    const page = `/api/sususcriptionv3?${bigDay}&per_page=4000`;
    await t.call(null, { method: 'GET', url: '/api/banks' });
    await list(page);
    const finished: string[] = [];
    const big = t.call(merchant, { method: 'GET', url: page, sign: true }).then((r) => {
      finished.push('page');
      return r;
    });
    // Sent at the event loop's next turn: one the page gives up while it reads, not a place in the microtask queue.
    const small = new Promise((resolve) => {
      setImmediate(resolve);
    })
      .then(() => t.call(null, { method: 'GET', url: '/api/banks' }))
      .then((r) => {
        finished.push('banks');
        return r;
      });
    const [pageRes, banks] = await Promise.all([big, small]);
    expect(pageRes.statusCode).toBe(200);
    expect(banks.statusCode).toBe(200);
    expect(finished).toEqual(['banks', 'page']);
  });

  it("costs the same statements for 3 rows as for 30, and one chunk's more past 500", async () => {
    for (const route of ['/api/sususcription', '/api/sususcriptionv3']) {
      const three = await statementsOf(`${route}?${day}&per_page=3`);
      const thirty = await statementsOf(`${route}?${day}&per_page=30`);
      const twoChunks = await statementsOf(`${route}?${bigDay}&per_page=${bigPage}`);
      process.stdout.write(
        `${route}: statements for 3 rows ${three}, 30 rows ${thirty}, ${bigPage} rows ${twoChunks}\n`,
      );
      expect(thirty).toBe(three);
      // The clock, the rows, then client, plan, cards, charges, cycles and logs: per row this was 6 statements more.
      expect(thirty).toBeLessThanOrEqual(8);
      // The next chunk: its rows and its six kinds.
      expect(twoChunks).toBe(thirty + 7);
    }
  });
});

// The dashboard's subscriptions and plans pages over HTTP (app.inject), as a browser without JavaScript: the list
// with its state filter, one subscription with its cycles, payments and status log, the plans with pricing and
// counts, and another account's subscription refused with the same 404 as a missing one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { dashboardBrowser, type DashboardBrowser } from '../support/dashboard.ts';
import {
  activeSubscription,
  createPlan,
  createSuClient,
} from '../modules/subscriptions/helpers.ts';

let t: TestApp;
let shop: TestAccount;
let other: TestAccount;
let b: DashboardBrowser;
let gold: { id: string; plan: string };
let consumption: { id: string; plan: string };
let registered: string;
let foreign: string;

beforeAll(async () => {
  t = await startTestApp();
  shop = await t.createAccount('Club <Café>');
  other = await t.createAccount('Otra tienda');
  gold = await activeSubscription(t, shop, {
    name: 'Oro',
    amount: 12990,
    interval: 'month',
    trial_days: 7,
  });
  consumption = await activeSubscription(t, shop, { name: 'Reparto' });
  await t.call(shop, {
    method: 'POST',
    url: '/api/sutransaction',
    sign: true,
    body: { suscription: consumption.id, amount: 4500, order: 'R-77', description: 'Pedido 77' },
  });
  const plan = await createPlan(t, shop, {
    name: 'Semanal',
    type: 'variable',
    interval: 'week',
    interval_count: 2,
  });
  const client = await createSuClient(t, shop, { email: 'espera@example.com', name: 'Ema Espera' });
  registered = (
    await t.call(shop, {
      method: 'POST',
      url: '/api/sususcription',
      sign: true,
      body: { plan, client, amount: 3000 },
    })
  ).json().id;
  foreign = (await activeSubscription(t, other, { name: 'Secreto' })).id;
  b = dashboardBrowser(t);
  await b.signIn(shop);
}, 120_000);
afterAll(async () => {
  await t.close();
});

describe('dashboard subscriptions and plans', () => {
  it("lists the account's subscriptions with plan, client, next charge and last payment, filtered by state", async () => {
    const page = await b.get('/dashboard/subscriptions');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('aria-current="page">Suscripciones');
    expect(page.body).toContain('3 suscripciones');
    expect(page.body).toContain('Reparto');
    expect(page.body).toContain('$4.500 · Pagada');
    expect(page.body).toContain('$12.990');
    expect(page.body).toContain('Según consumo');
    expect(page.body).toContain('Esperando tarjeta');
    expect(page.body).not.toContain('Secreto');
    expect(page.body).not.toContain(foreign);

    const active = await b.get('/dashboard/subscriptions?status=active');
    expect(active.body).toContain('2 suscripciones en este estado');
    expect(active.body).not.toContain(registered);
    expect(active.body).toContain('<option value="active" selected>Activa</option>');
    const unknown = await b.get('/dashboard/subscriptions?status=paused');
    expect(unknown.body).toContain('Estado desconocido.');
    expect(unknown.body).toContain('aria-invalid="true"');
  });

  it("shows one subscription with its cycles, payments and status log; another account's is not found", async () => {
    const page = await b.get(`/dashboard/subscriptions/${consumption.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Reparto · Consumo');
    expect(page.body).toContain('Visa terminada en 6623');
    expect(page.body).toContain('Un plan de consumo no tiene ciclos');
    expect(page.body).toContain('Pedido 77');
    expect(page.body).toContain('$4.500');
    expect(page.body).toMatch(
      /<strong>Activa<\/strong> <span class="muted">\(antes: Esperando tarjeta\)/,
    );
    expect(page.body).not.toContain('4051885600446623');

    const fixed = await b.get(`/dashboard/subscriptions/${gold.id}`);
    expect(fixed.body).toContain('Oro · Monto fijo, cada mes');
    expect(fixed.body).toContain('$12.990');

    const refused = await b.get(`/dashboard/subscriptions/${foreign}`);
    const missing = await b.get('/dashboard/subscriptions/su00000000000000000000');
    expect(refused.statusCode).toBe(404);
    const withoutCsrf = (html: string) => html.replace(/name="_csrf" value="[^"]+"/g, '');
    expect(withoutCsrf(refused.body)).toBe(withoutCsrf(missing.body));
    expect(refused.body).not.toContain('Secreto');
  });

  it('lists the plans with their pricing and subscription counts', async () => {
    const page = await b.get('/dashboard/plans');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('3 planes');
    expect(page.body).toMatch(
      /Oro[\s\S]*Monto fijo[\s\S]*\$12\.990[\s\S]*cada mes[\s\S]*7 días[\s\S]*1 activas de 1/,
    );
    expect(page.body).toMatch(
      /Semanal[\s\S]*Monto variable[\s\S]*Lo fija cada suscripción[\s\S]*cada 2 semanas[\s\S]*0 activas de 1/,
    );
    expect(page.body).not.toContain('Secreto');

    const ofGold = await b.get(`/dashboard/subscriptions?plan=${gold.plan}`);
    expect(page.body).toContain(`href="/dashboard/subscriptions?plan=${gold.plan}"`);
    expect(ofGold.body).toContain('1 suscripción del plan Oro');
    expect(ofGold.body).toContain(`<input type="hidden" name="plan" value="${gold.plan}">`);
    // Another account's plan narrows nothing and shows nothing of it.
    const foreignPlan = (
      await t.ctx.db
        .selectFrom('su_subscriptions')
        .select('plan_id')
        .where('id', '=', foreign)
        .executeTakeFirstOrThrow()
    ).plan_id;
    const notOurs = await b.get(`/dashboard/subscriptions?plan=${foreignPlan}`);
    expect(notOurs.body).toContain('3 suscripciones');
    expect(notOurs.body).not.toContain('Secreto');
  });

  it("shows a fixed plan's billing cycles once they are charged, and the next charge", async () => {
    const advanced = await t.call(shop, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 40 },
    });
    expect(advanced.statusCode, advanced.body).toBe(200);
    const page = await b.get(`/dashboard/subscriptions/${gold.id}`);
    expect(page.body).toMatch(
      /<td data-label="Ciclo">1<\/td>[\s\S]*status-cycle-success">Pagado<[\s\S]*\$12\.990/,
    );
    expect(page.body).not.toContain('Aún no hay ciclos de cobro.');
    const list = await b.get('/dashboard/subscriptions?status=active');
    expect(list.body).toMatch(
      /Oro[\s\S]*data-label="Próximo cobro">\d{4}-\d{2}-\d{2} [\d:]+ [+-]\d{2}<[\s\S]*\$12\.990 · Pagada/,
    );
  });

  it('sends a signed-out visitor to sign in', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/dashboard/subscriptions/${gold.id}` });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(
      `/dashboard/login?next=${encodeURIComponent(`/dashboard/subscriptions/${gold.id}`)}`,
    );
  });
});

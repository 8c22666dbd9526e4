// The dashboard's home over HTTP: sales per day and the wallet's closing balance over the last 30 days of the
// account's clock, drawn on the server as SVG, with the same figures in a table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { payByCard } from '../modules/transactions/helpers.ts';
import { dashboardBrowser } from '../support/dashboard.ts';
import { barChart, stepChart } from '../../src/dashboard/charts.ts';
import { windowDays } from '../../src/dashboard/home.ts';
import { resolve as resolveCommand, runResolved } from '../../src/cli/dispatch.ts';

let t: TestApp;
let shop: TestAccount;

beforeAll(async () => {
  // 15:00 UTC is midday in Santiago: every payment below falls on the local day it is meant for.
  t = await startTestApp({ clockStart: '2026-03-01T15:00:00Z' });
  shop = await t.createAccount('Tienda Centro');
  // 40 days ago (outside the window), then 2026-03-21 twice and 2026-04-09 (today) once.
  t.clock.set('2026-02-28T15:00:00Z');
  await payByCard(t, shop, { order: 'OLD-1', amount: 99000 });
  t.clock.set('2026-03-21T15:00:00Z');
  await payByCard(t, shop, { order: 'A-1', amount: 25000 });
  await payByCard(t, shop, { order: 'A-2', amount: 5000 });
  t.clock.set('2026-03-25T15:00:00Z');
  expect(
    (
      await t.call(shop, {
        method: 'POST',
        url: '/api/sandbox/wallet/credit',
        body: { amount: 70000 },
      })
    ).statusCode,
  ).toBe(200);
  t.clock.set('2026-04-09T15:00:00Z');
  await payByCard(t, shop, { order: 'B-1', amount: 12345 });
}, 180_000);
afterAll(async () => {
  await t.close();
});

describe('dashboard home', () => {
  it("counts the window's days back from today, across a month's end", () => {
    const days = windowDays('2026-03-02', 30);
    expect(days).toHaveLength(30);
    expect(days[0]).toBe('2026-02-01');
    expect(days.at(-1)).toBe('2026-03-02');
  });

  it('draws sales per day and the closing balance of the last 30 days, leaving older sales out', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const res = await b.get('/dashboard');
    expect(res.statusCode).toBe(200);
    const body = res.body;
    expect(body).toContain('<h1>Inicio</h1>');
    expect(body).toMatch(/Ventas de los últimos 30 días<\/p>\s*<p class="figure">\$42\.345</);
    expect(body).toContain('3 ventas pagadas');
    expect(body).not.toContain('$99.000</td>');
    // Each chart drawn wide and narrow (the stylesheet shows one), each with its own ids.
    expect(body.match(/<svg [^>]*role="img"[^>]*class="chart chart-wide"/g)).toHaveLength(2);
    expect(body.match(/<svg [^>]*role="img"[^>]*class="chart chart-narrow"/g)).toHaveLength(2);
    expect(body).toContain('<title id="sales-phone-title">');
    expect(body).toContain(
      '<title id="sales-title">Ventas por día en CLP, del 2026-03-11 al 2026-04-09</title>',
    );
    expect(body).toContain('<title>2026-03-21: $30.000</title>');
    expect(body).toContain('<title>2026-04-09: $12.345</title>');
    // The table: 2026-03-21 sold 30.000; the balance steps to 70.000 on the 25th and holds (settlement takes 0 days in tests, but the worker has not run).
    expect(body).toMatch(/2026-03-21<\/td><td data-label="Ventas" class="num">\$30\.000<\/td>/);
    expect(body).toMatch(
      /2026-03-24<\/td><td data-label="Ventas" class="num">\$0<\/td><td data-label="Saldo al cierre" class="num">\$0<\/td>/,
    );
    expect(body).toMatch(
      /2026-04-09<\/td><td data-label="Ventas" class="num">\$12\.345<\/td><td data-label="Saldo al cierre" class="num">\$70\.000<\/td>/,
    );
    expect(body).not.toContain('style=');
  });

  it('says whether the account requires strict signing (Cobro-Signature), as the operator sets it', async () => {
    const account = await t.createAccount('Firma estricta');
    const b = dashboardBrowser(t);
    await b.signIn(account);
    expect((await b.get('/dashboard')).body).toMatch(
      /id="strict-signing">Firma estricta \(Cobro-Signature\): <strong>no exigida<\/strong>/,
    );
    const resolved = resolveCommand(['accounts', 'require-strict-signing', account.id]);
    if (!('command' in resolved)) throw new Error(resolved.stderr);
    expect((await runResolved(resolved, t.ctx)).exitCode).toBe(0);
    expect((await b.get('/dashboard')).body).toMatch(
      /id="strict-signing">Firma estricta \(Cobro-Signature\): <strong>exigida<\/strong>/,
    );
  });

  it('tells a new account what to do next instead of drawing two empty charts', async () => {
    const fresh = await t.createAccount('Café Nuevo');
    const b = dashboardBrowser(t);
    await b.signIn(fresh);
    const body = (await b.get('/dashboard')).body;
    expect(body).toContain('Primeros pasos');
    expect(body).toContain('/api/transaction');
    expect(body).toContain('href="/dashboard/sandbox"');
    expect(body).not.toContain('<svg');
    expect(body).not.toContain('Máximo');
  });

  it('says a month was quiet in one line, not two flat charts', async () => {
    const quiet = await t.createAccount('Tienda Quieta');
    t.clock.set('2026-02-28T15:00:00Z');
    await payByCard(t, quiet, { order: 'Q-1', amount: 1000 });
    t.clock.set('2026-04-09T15:00:00Z');
    const b = dashboardBrowser(t);
    await b.signIn(quiet);
    const body = (await b.get('/dashboard')).body;
    expect(body).not.toContain('Primeros pasos');
    expect(body).toContain(
      'Sin ventas ni movimientos de la billetera en CLP en los últimos 30 días.',
    );
    expect(body).not.toContain('<svg');
  });

  it("follows the account's sandbox clock: advanced 40 days, the window is empty of sales", async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    await b.get('/dashboard/sandbox');
    expect(
      (await b.post('/dashboard/sandbox/advance', { days: '40', hours: '0' })).statusCode,
    ).toBe(303);
    const body = (await b.get('/dashboard')).body;
    expect(body).toContain('0 ventas pagadas');
    expect(body).toContain('del 2026-04-20 al 2026-05-19');
  });
});

describe('SVG charts', () => {
  const format = (v: bigint) => `$${v}`;
  const points = [
    { day: '2026-01-01', value: 0n },
    { day: '2026-01-02', value: 100n },
    { day: '2026-01-03', value: 50n },
  ];

  it('draws bars to scale from zero and escapes every text', () => {
    const svg = barChart({ id: 's', title: 'Ventas <b>', description: 'd & e', points, format });
    expect(svg).toContain('<title id="s-title">Ventas &lt;b&gt;</title>');
    expect(svg).toContain('<desc id="s-desc">d &amp; e</desc>');
    const heights = [...svg.matchAll(/<rect [^>]*height="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(heights).toEqual([0, 184, 92]);
  });

  it('draws a stepped line that reaches below zero when the balance does', () => {
    const svg = stepChart({
      id: 'b',
      title: 'Saldo',
      description: '',
      points: [...points, { day: '2026-01-04', value: -100n }],
      format,
    });
    expect(svg).toMatch(/<path d="M[\d.]+ [\d.]+ H[\d.]+ V[\d.]+/);
    expect(svg).toContain('Mínimo $-100');
    expect(
      stepChart({
        id: 'z',
        title: 'Saldo',
        description: '',
        points: [{ day: '2026-01-01', value: 0n }],
        format,
      }),
    ).not.toContain('NaN');
  });
});

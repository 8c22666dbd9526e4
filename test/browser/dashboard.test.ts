// A real Chromium on a real server: a merchant signs in to /dashboard with the account's tokens at a phone's
// width (390 px), searches the transactions, opens one and sees its timeline, and is refused another account's
// transaction. Screenshots of each page go to docs/screenshots/ (the README shows them).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiCall, startBrowserHarness, type BrowserHarness } from '../support/browser-server.ts';
import { enrolOverHttp } from '../modules/subscriptions/helpers.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { approvedVisa } from '../modules/transactions/helpers.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { deliverDueNotifications } from '../../src/platform/notifications/deliver.ts';

const screenshotsDir = path.resolve('docs/screenshots');
let h: BrowserHarness;
let tokens: { publicToken: string; privateToken: string };
let paidId: string;
let foreignId: string;
let receiver: Receiver;
let subscriptionId: string;
let foreignSubscriptionId: string;

async function pay(url: string): Promise<void> {
  const link = new URL(url);
  const form = new URLSearchParams({
    id: link.searchParams.get('id') ?? '',
    valid: link.searchParams.get('valid') ?? '',
    method: '1',
    ...approvedVisa,
  });
  const res = await fetch(`${h.server.url}/gateway/cobro`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
  });
  expect(res.status).toBeLessThan(400);
}

beforeAll(async () => {
  h = await startBrowserHarness('Otra tienda');
  const foreign = await h.api('POST', '/api/transaction/', {
    email: 'x@otra.example',
    order: 'AJENA-1',
    subject: 'Ajena',
    amount: 777,
  });
  foreignId = String(foreign.body.id);
  const shop = await createAccount(h.server.runtime.ctx, 'Librería Los Andes');
  if (!shop.ok) throw new Error(shop.error);
  tokens = shop.value;
  const api = async (body: Record<string, unknown>) => {
    const res = await fetch(`${h.server.url}/api/transaction/`, {
      method: 'POST',
      body: JSON.stringify({ subject: 'Libros', ...body }),
      headers: {
        authorization: `Bearer ${tokens.publicToken}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
    });
    return (await res.json()) as { id: string; url: string };
  };
  receiver = await startReceiver((_request, index) => (index === 0 ? 503 : 200));
  const paid = await api({
    email: 'ana.rojas@example.cl',
    order: 'LIB-2041',
    amount: 45990,
    urlnotify: `${receiver.url}/notify`,
  });
  paidId = paid.id;
  await pay(paid.url);
  await api({ email: 'bruno@example.cl', order: 'LIB-2042', amount: 12500 });
  await pay((await api({ email: 'carmen@example.cl', order: 'LIB-2043', amount: 1250000 })).url);
  // The first delivery of LIB-2041's callback fails (503): the merchant will resend it from the dashboard.
  await deliverDueNotifications(h.server.runtime.ctx);
  fs.mkdirSync(screenshotsDir, { recursive: true });
}, 180_000);

/** The shop's plans and subscriptions (one active with a charge, one waiting for its card), and another account's. */
async function subscriptions(): Promise<void> {
  const shopApi = (method: 'POST', url: string, body: Record<string, unknown>) =>
    apiCall(h.server.url, tokens, method, url, body, true);
  const subscribe = async (
    api: typeof shopApi,
    plan: Record<string, unknown>,
    client: Record<string, unknown>,
    enrol: boolean,
  ) => {
    const planId = (await api('POST', '/api/suplan', plan)).body.id;
    const clientId = (await api('POST', '/api/suclient', { phone: '912345678', ...client })).body
      .id;
    const sub = (await api('POST', '/api/sususcription', { plan: planId, client: clientId })).body;
    if (enrol) expect(await enrolOverHttp(h.server.url, sub.url)).toContain('Tarjeta registrada');
    return sub.id as string;
  };
  subscriptionId = await subscribe(
    shopApi,
    { name: 'Club de lectura', type: 'consumption' },
    { email: 'ana.rojas@example.cl', name: 'Ana Rojas' },
    true,
  );
  await shopApi('POST', '/api/sutransaction', {
    suscription: subscriptionId,
    amount: '15990',
    order: 'CLUB-0001',
    description: 'Libro del mes',
  });
  await subscribe(
    shopApi,
    { name: 'Revista mensual', amount: 4990, interval: 'month', trial_days: 7 },
    { email: 'bruno@example.cl', name: 'Bruno Díaz' },
    false,
  );
  foreignSubscriptionId = await subscribe(
    (m, u, b) => h.api(m, u, b, true),
    { name: 'Plan ajeno' },
    { email: 'x@otra.example', name: 'Ajeno' },
    true,
  );
}
afterAll(async () => {
  await h.close();
  await receiver.close();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${h.server.url}/dashboard`);
  await expect.poll(() => page.url()).toContain('/dashboard/login');
  await page.getByLabel('Token público').fill(tokens.publicToken);
  await page.getByLabel('Token privado').fill(tokens.privateToken);
  await page.getByRole('button', { name: 'Ingresar con los tokens' }).click();
  await page.waitForURL(/\/dashboard$/);
}

describe('merchant dashboard in Chromium', () => {
  it("signs in with the tokens at 390 px, searches, opens a transaction and is refused another account's", async () => {
    const page = await h.browser.newPage({
      viewport: { width: 390, height: 844 },
      javaScriptEnabled: false,
    });
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(h.server.url)) foreign.push(r.url());
    });

    await page.goto(`${h.server.url}/dashboard/login`);
    await page.screenshot({
      path: path.join(screenshotsDir, 'dashboard-login.png'),
      fullPage: true,
    });
    await signIn(page);
    // Home: the last 30 days drawn as SVG on the server, with the figures in a table too.
    expect(await page.locator('h1').textContent()).toBe('Inicio');
    expect(await page.locator('svg[role=img]:visible').count()).toBe(2);
    expect(await page.locator('main').textContent()).toContain('2 ventas pagadas');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({
      path: path.join(screenshotsDir, 'dashboard-home.png'),
      fullPage: true,
    });
    await page.getByRole('link', { name: 'Transacciones' }).click();
    await page.waitForURL(/\/dashboard\/transactions$/);
    expect(await page.locator('h1').textContent()).toBe('Transacciones');
    expect(await page.locator('body').textContent()).toContain('3 transacciones');
    expect(await page.locator('body').textContent()).toContain('$1.250.000');
    // Nothing wider than the phone's screen: no sideways scrolling.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({
      path: path.join(screenshotsDir, 'dashboard-transactions.png'),
      fullPage: true,
    });

    await page.getByLabel('Buscar por orden o correo').fill('ana.rojas');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/q=ana.rojas/);
    expect(await page.locator('[role=status]').textContent()).toContain(
      '1 transacción con estos filtros',
    );
    await page.getByRole('link', { name: 'LIB-2041' }).click();
    await page.waitForURL(new RegExp(`/dashboard/transactions/${paidId}$`));
    const detail = await page.locator('main').textContent();
    for (const text of ['Orden LIB-2041', '$45.990', 'Pagada', 'Creada', 'Historial'])
      expect(detail).toContain(text);
    await page.screenshot({
      path: path.join(screenshotsDir, 'dashboard-transaction.png'),
      fullPage: true,
    });

    const refused = await page.goto(`${h.server.url}/dashboard/transactions/${foreignId}`);
    expect(refused?.status()).toBe(404);
    expect(await page.locator('main').textContent()).toContain('no pertenece a tu cuenta');
    expect(await page.locator('main').textContent()).not.toContain('AJENA-1');

    await page.getByRole('button', { name: 'Salir' }).click();
    await page.waitForURL(/\/dashboard\/login$/);
    await page.goto(`${h.server.url}/dashboard/transactions`);
    expect(page.url()).toContain('/dashboard/login');
    expect(foreign).toEqual([]);
    await page.close();
  }, 180_000);

  it("resends a failed callback from the transaction's timeline and sees the wallet", async () => {
    const page = await h.browser.newPage({
      viewport: { width: 390, height: 844 },
      javaScriptEnabled: false,
    });
    await signIn(page);
    await page.goto(`${h.server.url}/dashboard/transactions/${paidId}`);
    await page.getByRole('link', { name: 'Notificación transaction.result' }).click();
    await page.waitForURL(/\/dashboard\/callbacks\/msg_/);
    expect(await page.locator('main').textContent()).toContain('HTTP 503');
    await page.getByRole('button', { name: 'Reenviar ahora' }).click();
    await page.waitForURL(/resent=ok$/);
    expect(await page.locator('[role=status]').textContent()).toContain('se enviará de nuevo');
    expect(await deliverDueNotifications(h.server.runtime.ctx)).toBe(1);
    await page.reload();
    const delivered = await page.locator('main').textContent();
    expect(delivered).toContain('Entregada');
    expect(delivered).toMatch(/2\s*\d{4}-\d{2}-\d{2} [\d:]+ [+-]\d{2}\s*Entregada\s*200/);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([
      receiver.requests[0]!.headers['webhook-id'],
      receiver.requests[0]!.headers['webhook-id'],
    ]);
    await page.screenshot({
      path: path.join(screenshotsDir, 'dashboard-callback.png'),
      fullPage: true,
    });
    await page.getByRole('link', { name: 'Billetera' }).click();
    await page.waitForURL(/\/dashboard\/wallet$/);
    expect(await page.locator('main').textContent()).toContain('Saldo disponible');
    await page.screenshot({
      path: path.join(screenshotsDir, 'dashboard-wallet.png'),
      fullPage: true,
    });
    await page.close();
  }, 180_000);

  it("shows the subscriptions, one with its payments and log, and the plans at 390 px; refuses another account's", async () => {
    // Made here, not before every test: the charges are sales that the transactions test does not count.
    await subscriptions();
    const page = await h.browser.newPage({
      viewport: { width: 390, height: 844 },
      javaScriptEnabled: false,
    });
    await signIn(page);
    await page.getByRole('link', { name: 'Suscripciones' }).click();
    await page.waitForURL(/\/dashboard\/subscriptions$/);
    const list = await page.locator('main').textContent();
    expect(list).toContain('2 suscripciones');
    expect(list).toContain('Esperando tarjeta');
    expect(list).toContain('$15.990 · Pagada');
    expect(list).not.toContain('Plan ajeno');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.getByLabel('Estado').selectOption('active');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/status=active$/);
    expect(await page.locator('main').textContent()).toContain('1 suscripción en este estado');
    await page.screenshot({
      path: path.join(screenshotsDir, 'dashboard-subscriptions.png'),
      fullPage: true,
    });

    await page.getByRole('link', { name: 'Ana Rojas' }).click();
    await page.waitForURL(new RegExp(`/dashboard/subscriptions/${subscriptionId}$`));
    const one = await page.locator('main').textContent();
    expect(one).toContain('Club de lectura · Consumo');
    expect(one).toContain('Visa terminada en 6623');
    expect(one).toContain('Libro del mes');
    expect(one).toMatch(/Activa\s*\(antes: Esperando tarjeta\)/);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({
      path: path.join(screenshotsDir, 'dashboard-subscription.png'),
      fullPage: true,
    });

    await page.getByRole('link', { name: 'Planes' }).click();
    await page.waitForURL(/\/dashboard\/plans$/);
    const plans = await page.locator('main').textContent();
    expect(plans).toMatch(
      /Revista mensual[\s\S]*\$4\.990[\s\S]*cada mes[\s\S]*7 días[\s\S]*0 activas de 1/,
    );
    expect(plans).toMatch(/Club de lectura[\s\S]*Según consumo[\s\S]*1 activas de 1/);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({
      path: path.join(screenshotsDir, 'dashboard-plans.png'),
      fullPage: true,
    });

    const refused = await page.goto(
      `${h.server.url}/dashboard/subscriptions/${foreignSubscriptionId}`,
    );
    expect(refused?.status()).toBe(404);
    expect(await page.locator('main').textContent()).toContain('no pertenece a tu cuenta');
    expect(await page.locator('main').textContent()).not.toContain('Ajeno');
    await page.close();
  }, 180_000);

  it('reaches every control with the keyboard on a desktop screen', async () => {
    const page = await h.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page);
    await page.goto(`${h.server.url}/dashboard/transactions`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Saltar al contenido');
    const reached = new Set<string>();
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      reached.add(
        String(
          await page.evaluate(
            "(() => { const el = document.activeElement; return el?.id || el?.textContent?.trim() || ''; })()",
          ),
        ),
      );
    }
    for (const control of [
      'Transacciones',
      'Salir',
      'q',
      'status',
      'from',
      'to',
      'Filtrar',
      'LIB-2043',
    ])
      expect(reached, control).toContain(control);
    await page.screenshot({ path: path.join(screenshotsDir, 'dashboard-desktop.png') });
    await page.close();
  }, 120_000);
});

// Every dashboard page in a real Chromium at a desktop's 1280 px and a phone's 390 px (issue 32): a screenshot of
// each under docs/screenshots/dashboard/, axe-core finds no critical or serious violation, nothing is wider than
// the phone, the menu stays one row, badges stay badges, the bank's reason wraps, chart labels stay readable, a new
// account's home says what to do next, a declined try shows in the list, and every time names its zone.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import axe from 'axe-core';
import type { BrowserContext, Page } from 'playwright-core';
import { apiCall, startBrowserHarness, type BrowserHarness } from '../support/browser-server.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { approvedVisa, rejectedMastercard } from '../modules/transactions/helpers.ts';
import { payoutBody } from '../modules/wallet/wallet-helpers.ts';
import { enrolOverHttp } from '../modules/subscriptions/helpers.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { deliverDueNotifications } from '../../src/platform/notifications/deliver.ts';

const screenshotsDir = path.resolve('docs/screenshots/dashboard');
const widths = [1280, 390] as const;
let h: BrowserHarness;
let receiver: Receiver;
let shop: { publicToken: string; privateToken: string };
const ids = { paid: '', callback: '', subscription: '' };

type Api = (
  method: 'POST' | 'GET',
  url: string,
  body?: Record<string, unknown>,
  sign?: boolean,
) => Promise<{ status: number; body: Record<string, any> }>;

async function submitCard(url: string, card: Record<string, string>): Promise<void> {
  const link = new URL(url);
  const form = new URLSearchParams({
    id: link.searchParams.get('id') ?? '',
    valid: link.searchParams.get('valid') ?? '',
    method: '1',
    ...card,
  });
  const res = await fetch(`${h.server.url}/gateway/cobro`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
  });
  expect(res.status).toBeLessThan(400);
}

/** A shop with paid, pending-after-a-decline and PEN sales, a rejected and a pending payout, a subscription and a failed callback. */
async function stockShop(api: Api): Promise<void> {
  const sale = async (body: Record<string, unknown>) =>
    (
      await api('POST', '/api/transaction/', {
        subject: 'Libros',
        email: 'ana.rojas@example.cl',
        ...body,
      })
    ).body as { id: string; url: string };
  const paid = await sale({
    order: 'LIB-2041',
    amount: 45990,
    urlnotify: `${receiver.url}/notify`,
  });
  ids.paid = paid.id;
  await submitCard(paid.url, approvedVisa);
  await submitCard(
    (await sale({ order: 'LIB-2042', amount: 12500, email: 'bruno@example.cl' })).url,
    rejectedMastercard,
  );
  await submitCard(
    (await sale({ order: 'LIB-PE-7', amount: 12550, currency: 'PEN' })).url,
    approvedVisa,
  );
  // Two days on the shop's sandbox clock: the sales settle, and what follows is created ahead
  // of the service clock, as a merchant testing with the clock sees it.
  expect((await api('POST', '/api/sandbox/clock/advance', { hours: 48 })).status).toBe(200);
  expect(
    (
      await api('POST', '/api/sandbox/wallet/credit', {
        amount: 50000,
        currency: 'CLP',
        reason: 'fondos de prueba',
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await api('POST', '/api/sandbox/wallet/credit', {
        amount: 12550,
        currency: 'PEN',
        reason: 'fondos de prueba',
      })
    ).status,
  ).toBe(200);
  // 1500 is refused by the sandbox bank at once, with its long reason; 2000 waits.
  expect(
    (
      await api(
        'POST',
        '/api/wallet/payout',
        payoutBody({
          amount: 1500,
          order: 'PAGO-1',
          accountbank_name: 'Proveedora de Papel y Tintas del Sur Limitada',
          url_notify: `${receiver.url}/payouts`,
        }),
        true,
      )
    ).status,
  ).toBe(200);
  expect(
    (await api('POST', '/api/wallet/payout', payoutBody({ amount: 2000, order: 'PAGO-2' }), true))
      .status,
  ).toBe(200);
  const planId = (
    await api('POST', '/api/suplan', { name: 'Club de lectura', type: 'consumption' }, true)
  ).body.id;
  const clientId = (
    await api(
      'POST',
      '/api/suclient',
      { phone: '912345678', email: 'ana.rojas@example.cl', name: 'Ana Rojas' },
      true,
    )
  ).body.id;
  const sub = (await api('POST', '/api/sususcription', { plan: planId, client: clientId }, true))
    .body;
  expect(await enrolOverHttp(h.server.url, sub.url)).toContain('Tarjeta registrada');
  ids.subscription = sub.id;
  await api(
    'POST',
    '/api/sutransaction',
    { suscription: sub.id, amount: '15990', order: 'CLUB-0001', description: 'Libro del mes' },
    true,
  );
  await deliverDueNotifications(h.server.runtime.ctx);
}

beforeAll(async () => {
  h = await startBrowserHarness('Tienda Nueva');
  let failedOnce = false;
  // The sale's first callback fails (the callback page shows its 503); every other is delivered.
  receiver = await startReceiver((request) => {
    if (request.path !== '/notify' || failedOnce) return 200;
    failedOnce = true;
    return 503;
  });
  const created = await createAccount(h.server.runtime.ctx, 'Librería Los Andes');
  if (!created.ok) throw new Error(created.error);
  shop = created.value;
  await stockShop((method, url, body, sign) =>
    apiCall(h.server.url, shop, method, url, body, sign),
  );
  fs.mkdirSync(screenshotsDir, { recursive: true });
}, 180_000);

afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

/** A browser context signed in with the account's tokens; CSP is bypassed only so the test can inject axe-core. */
async function signedIn(
  tokens: { publicToken: string; privateToken: string },
  width: number,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await h.browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
  const page = await context.newPage();
  await page.goto(`${h.server.url}/dashboard/login`);
  await page.getByLabel('Token público').fill(tokens.publicToken);
  await page.getByLabel('Token privado').fill(tokens.privateToken);
  await page.getByRole('button', { name: 'Ingresar con los tokens' }).click();
  await page.waitForURL(/\/dashboard$/);
  return { context, page };
}

/** axe-core's critical and serious findings on the page, as `rule: target` lines. */
async function axeProblems(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axe.source });
  const result = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] })",
  )) as axe.AxeResults;
  return result.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}

/** Opens a page, checks what every page must hold at this width, and keeps its screenshot. */
async function visit(page: Page, url: string, name: string, width: number): Promise<string> {
  const res = await page.goto(`${h.server.url}${url}`);
  expect(res?.status(), url).toBeLessThan(500);
  expect(await axeProblems(page), `${url} at ${width}`).toEqual([]);
  expect(
    await page.evaluate('document.documentElement.scrollWidth'),
    `${url} at ${width}`,
  ).toBeLessThanOrEqual(width);
  await page.screenshot({
    path: path.join(screenshotsDir, `${name}-${width}.png`),
    fullPage: true,
  });
  return await page.locator('main').innerText();
}

/** The rendered height of the section menu, and how many rows its links take. */
async function menuRows(page: Page): Promise<number> {
  return page.evaluate(
    "new Set([...document.querySelectorAll('nav[aria-label=Secciones] li')].map((li) => Math.round(li.getBoundingClientRect().top))).size",
  );
}

/** The smallest on-screen size of a visible chart label, in CSS pixels. */
async function smallestChartLabelPx(page: Page): Promise<number> {
  return page.evaluate(`Math.min(...[...document.querySelectorAll('svg.chart')].filter((svg) => svg.getBoundingClientRect().width > 0)
    .flatMap((svg) => {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return [...svg.querySelectorAll('text')].map((t) => Number(t.getAttribute('font-size')) * scale);
    }))`);
}

describe('every dashboard page at 1280 and 390 px', () => {
  for (const width of widths) {
    it(`the shop's pages at ${width} px`, async () => {
      const { context, page } = await signedIn(shop, width);
      expect(await menuRows(page)).toBe(1);
      const home = await visit(page, '/dashboard', 'home', width);
      expect(home).toContain('2 ventas pagadas');
      expect(await smallestChartLabelPx(page)).toBeGreaterThanOrEqual(11);
      expect(await page.locator('svg.chart:visible').count()).toBe(2);
      expect(await visit(page, '/dashboard?currency=PEN', 'home-pen', width)).toContain(
        'S/\u00a0125.50',
      );

      const list = await visit(page, '/dashboard/transactions', 'transactions', width);
      expect(list).toMatch(/Pendiente\s*· 1 intento rechazado/);
      expect(list).toContain('S/\u00a0125.50');
      expect(list).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{2}/);
      expect(
        await visit(page, `/dashboard/transactions/${ids.paid}`, 'transaction', width),
      ).toContain('$45.990');
      expect(await visit(page, '/dashboard/wallet', 'wallet', width)).toContain('Saldo disponible');

      const payouts = await visit(page, '/dashboard/payouts', 'payouts', width);
      expect(payouts).toContain('Cuenta Beneficiario no Existe');
      const badge = await page.locator('.status-payout-banking_error').first().boundingBox();
      expect(badge!.height, 'a badge is one line').toBeLessThan(40);
      const reason = page.locator('.cell .muted', { hasText: 'Cuenta Beneficiario' }).first();
      const fits = await reason.evaluate((el) => ({
        right: el.getBoundingClientRect().right,
        overflow: el.scrollWidth - el.clientWidth,
      }));
      expect(fits.right).toBeLessThanOrEqual(width);
      expect(fits.overflow).toBeLessThanOrEqual(1);

      expect(await visit(page, '/dashboard/subscriptions', 'subscriptions', width)).toContain(
        'Ana Rojas',
      );
      expect(
        await visit(page, `/dashboard/subscriptions/${ids.subscription}`, 'subscription', width),
      ).toContain('Libro del mes');
      expect(await visit(page, '/dashboard/plans', 'plans', width)).toContain('Club de lectura');
      const callbacks = await visit(page, '/dashboard/callbacks', 'callbacks', width);
      expect(callbacks).toMatch(/\d{2}:\d{2}:\d{2} [+-]\d{2}/);
      await page.getByRole('link', { name: 'transaction.result' }).first().click();
      expect(await visit(page, new URL(page.url()).pathname, 'callback', width)).toContain(
        'HTTP 503',
      );
      expect(await visit(page, '/dashboard/sandbox', 'sandbox', width)).toContain(
        'Hora de tu cuenta',
      );
      expect(await visit(page, '/dashboard/transactions/tx-none', 'not-found', width)).toContain(
        'no pertenece a tu cuenta',
      );
      expect(await menuRows(page)).toBe(1);
      await context.close();
    }, 180_000);

    // Decision 1015: the wallet page of an account that owes a chargeback debt, its total and the dispute.
    it(`the wallet's chargeback debt at ${width} px`, async () => {
      const { context, page } = await signedIn(await owingAccountTokens(), width);
      const wallet = await visit(page, '/dashboard/wallet', 'wallet-debt', width);
      expect(wallet).toContain('Deuda por contracargos');
      expect(wallet).toContain('$7.500');
      expect(await page.locator('section[aria-labelledby=debt-title] tbody tr').count()).toBe(1);
      await context.close();
    }, 120_000);

    it(`a new account's first screen and the sign-in page at ${width} px`, async () => {
      const anonymous = await h.browser.newContext({
        viewport: { width, height: 900 },
        bypassCSP: true,
      });
      await visit(await anonymous.newPage(), '/dashboard/login', 'login', width);
      await anonymous.close();
      const tokens = await newAccountTokens();
      const { context, page } = await signedIn(tokens, width);
      const home = await visit(page, '/dashboard', 'home-new-account', width);
      expect(home).toContain('Primeros pasos');
      expect(home).toContain('/api/transaction');
      expect(home).toContain('4051 8856 0044 6623');
      expect(home).not.toContain('Máximo');
      expect(await page.locator('svg.chart').count()).toBe(0);
      await context.close();
    }, 120_000);
  }
});

let fresh: { publicToken: string; privateToken: string } | null = null;
/** An account with nothing in it (made once, shared by both widths). */
async function newAccountTokens(): Promise<{ publicToken: string; privateToken: string }> {
  if (fresh === null) {
    const created = await createAccount(h.server.runtime.ctx, 'Café Recién Abierto');
    if (!created.ok) throw new Error(created.error);
    fresh = created.value;
  }
  return fresh;
}

let owing: { publicToken: string; privateToken: string } | null = null;
/** An account whose paid sale, not settled yet, was disputed: all of it is debt (made once, shared by both widths). */
async function owingAccountTokens(): Promise<{ publicToken: string; privateToken: string }> {
  if (owing === null) {
    const created = await createAccount(h.server.runtime.ctx, 'Bicicletas del Cerro');
    if (!created.ok) throw new Error(created.error);
    const tokens = created.value;
    const api = (url: string, body: Record<string, unknown>) =>
      apiCall(h.server.url, tokens, 'POST', url, body);
    const sale = (
      await api('/api/transaction/', {
        subject: 'Bicicleta',
        email: 'ana.rojas@example.cl',
        order: 'BIC-1',
        amount: 19990,
      })
    ).body as { id: string; url: string };
    await submitCard(sale.url, approvedVisa);
    const opened = await api('/api/sandbox/disputes', {
      transaction_id: sale.id,
      amount: 7500,
      reason: 'Cargo no reconocido por el titular de la tarjeta',
    });
    expect(opened.status).toBe(200);
    owing = tokens;
  }
  return owing;
}

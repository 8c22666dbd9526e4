// What a new user saw on the hosted checkout (issue 16 point 8), checked in Chromium on a real server: text and
// input borders with WCAG AA contrast, the privacy notice that fits the page (card data on card pages, the bank
// password on bank pages), a receipt on the success page, the sandbox badge on every page, and a favicon.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testConfig } from '../support/app.ts';
import { cloneTestDatabase } from '../support/database.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { freePort } from '../support/net.ts';
import { seriousAxeViolations } from './axe.ts';

let server: RunningServer;
let browser: Browser;
let token: string;

async function create(extra: Record<string, unknown> = {}) {
  const res = await fetch(`${server.url}/api/transaction/`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      email: 'pagador@example.com',
      order: `rcpt-${Date.now()}`,
      subject: 'Mochila 40 L',
      amount: 25000,
      ...extra,
    }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: string; url: string };
}

/** WCAG 2.x contrast ratio of two CSS rgb() colours. */
function contrast(a: string, b: string): number {
  const lum = (css: string) => {
    const [r, g, bl] = css
      .match(/\d+(\.\d+)?/g)!
      .slice(0, 3)
      .map(Number)
      .map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** A computed style, read in the page (this file's types have no DOM: the function runs in the browser). */
const style = (page: Page, selector: string, property: string): Promise<string> =>
  page.$eval(
    selector,
    (el, p) =>
      (
        globalThis as unknown as {
          getComputedStyle(e: unknown): { getPropertyValue(n: string): string };
        }
      )
        .getComputedStyle(el)
        .getPropertyValue(p),
    property,
  );

beforeAll(async () => {
  const port = await freePort();
  const config = testConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  });
  server = await startServer(config, { handle: await cloneTestDatabase() });
  const account = await createAccount(server.runtime.ctx, 'Tienda Andes');
  if (!account.ok) throw new Error(account.error);
  token = account.value.publicToken;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('checkout details a payer notices', () => {
  it('pays by card and keeps a receipt, with readable contrast, the card notice, the sandbox badge and a favicon', async () => {
    const created = await create({ urlreturn: 'https://shop.example/back?o=1' });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(created.url);
    await expect(page.getByTestId('sandbox-badge').textContent()).resolves.toContain('Sandbox');
    await expect(page.title()).resolves.toMatch(/^\[Sandbox\] /);
    // The methods page asks for no secret, so it makes no promise about one.
    await expect(page.getByTestId('privacy-notice').count()).resolves.toBe(0);
    await page.getByRole('link', { name: /^Webpay\s*Visa/ }).click();
    await expect(page.getByTestId('privacy-notice').textContent()).resolves.toContain('tarjeta');
    await expect(page.getByTestId('sandbox-badge').count()).resolves.toBe(1);

    // WCAG AA: 4.5:1 for the footer's small text on the page, 3:1 for an input's border (non-text contrast).
    const pageBackground = await style(page, 'body', 'background-color');
    expect(contrast(await style(page, 'footer', 'color'), pageBackground)).toBeGreaterThanOrEqual(
      4.5,
    );
    expect(
      contrast(
        await style(page, '#card_number', 'border-top-color'),
        await style(page, '.card', 'background-color'),
      ),
    ).toBeGreaterThanOrEqual(3);
    expect(
      contrast(
        await style(page, '.badge', 'color'),
        await style(page, '.badge', 'background-color'),
      ),
    ).toBeGreaterThanOrEqual(4.5);

    // The favicon the page links to, and the one browsers ask for on their own.
    const icon = await page.$eval('link[rel=icon]', (l) => (l as unknown as { href: string }).href);
    for (const url of [icon, `${server.url}/favicon.ico`]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('image/svg+xml');
      expect(await res.text()).toMatch(/^<svg /);
    }

    await page.fill('#card_number', '4051 8856 0044 6623');
    await page.fill('#expiry', '12/99');
    await page.fill('#cvv', '123');
    await page.getByRole('button', { name: /Pagar \$25\.000/ }).click();
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago exitoso');
    const receipt = async () =>
      page.$$eval('[data-testid=receipt] dt', (dts) =>
        Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
      );
    const got = (await (
      await fetch(`${server.url}/api/transaction/${created.id}`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as Record<string, any>;
    const shown = await receipt();
    expect(shown).toEqual({
      Monto: '$25.000',
      Comercio: 'Tienda Andes',
      Orden: got.order,
      Fecha: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      'Medio de pago': 'Webpay',
      Tarjeta: '•••• 6623',
      'Código de autorización': got.payment.authorization_code,
    });
    expect(got.payment.authorization_code).toMatch(/^\d{6}$/);
    expect(shown.Fecha).toBe(got.payment.end);
    // The receipt stays on screen: no timed redirect, a button back to the shop, nothing axe calls serious.
    await expect(page.locator('meta[http-equiv=refresh]').count()).resolves.toBe(0);
    const back = page.getByRole('link', { name: 'Volver a Tienda Andes' });
    await expect(back.getAttribute('href')).resolves.toBe('https://shop.example/back?o=1');
    expect(await seriousAxeViolations(page)).toEqual([]);
    const resultUrl = page.url();
    await page.waitForTimeout(3500);
    expect(page.url()).toBe(resultUrl);
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago exitoso');
    await expect(page.getByTestId('sandbox-badge').count()).resolves.toBe(1);
    // Opening the link again shows the same receipt.
    await page.goto(created.url);
    expect(await receipt()).toEqual(shown);
    await page.close();
  });

  it('tells a bank payer about the password, not about a card, and keeps the bank on the receipt', async () => {
    const created = await create({ payment: 2 });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(created.url);
    const notice = await page.getByTestId('privacy-notice').textContent();
    expect(notice).toContain('clave');
    expect(notice).not.toContain('tarjeta');
    expect(
      contrast(
        await style(page, '#rut', 'border-top-color'),
        await style(page, '.card', 'background-color'),
      ),
    ).toBeGreaterThanOrEqual(3);
    await page.fill('#rut', '11.111.111-1');
    await page.fill('#password', '123');
    await page.click('button[type=submit]');
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago exitoso');
    const text = await page.getByTestId('receipt').textContent();
    expect(text).toContain('Khipu');
    expect(text).toContain('Banco');
    expect(text).not.toContain('Tarjeta');
    await page.close();
  });

  it('keeps the rejected and the processing pages on screen, axe-clean, with a way back or a way to ask again', async () => {
    const created = await create({ urlreturn: 'https://shop.example/back?o=2' });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${created.url}&method=1`);
    for (let i = 0; i < 3; i += 1) {
      await page.fill('#card_number', '5186 0595 5959 0568');
      await page.fill('#expiry', '12/99');
      await page.fill('#cvv', '123');
      await page.getByRole('button', { name: /Pagar/ }).click();
    }
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago rechazado');
    await expect(page.locator('meta[http-equiv=refresh]').count()).resolves.toBe(0);
    await expect(
      page.getByRole('link', { name: 'Volver a Tienda Andes' }).getAttribute('href'),
    ).resolves.toBe('https://shop.example/back?o=2');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // An attempt in flight (its lease held): the page says so and offers "Actualizar", never a timed reload.
    const held = await create();
    await server.runtime.ctx.db
      .updateTable('transactions')
      .set({ attempt_lease_until: new Date(Date.now() + 60 * 60_000) })
      .where('id', '=', held.id)
      .execute();
    await page.goto(held.url);
    await expect(page.getByTestId('result').textContent()).resolves.toBe(
      'Estamos procesando tu pago',
    );
    await expect(page.locator('meta[http-equiv=refresh]').count()).resolves.toBe(0);
    await expect(page.getByTestId('refresh').textContent()).resolves.toBe('Actualizar');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.close();
  });

  it('shows no sandbox badge in production', async () => {
    const port = await freePort();
    const config = testConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      COBRO_MODE: 'production',
      COBRO_SECRET_KEY: 'ef'.repeat(32),
    });
    const prod = await startServer(config, { handle: await cloneTestDatabase() });
    try {
      const page = await browser.newPage();
      await page.goto(`${prod.url}/gateway/cobro?id=trxnope&valid=x`);
      await expect(page.textContent('h1')).resolves.toBe('Enlace de pago no válido');
      await expect(page.getByTestId('sandbox-badge').count()).resolves.toBe(0);
      await page.close();
    } finally {
      await prod.close();
    }
  });
});

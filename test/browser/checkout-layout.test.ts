// The payer's checkout pages in a real Chromium at a desktop's 1280 px and a phone's 390 px (issue 32): the
// method choice, the card form, the bank login (sandbox), the processing page, the page of a sale left with no
// method, the result and a bad link. Each has no critical or serious axe-core violation and nothing wider than the
// screen (the receipt's values each on one line), and its screenshot is kept under docs/screenshots/checkout/ (shown in docs/payments.md).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserHarness, type BrowserHarness } from '../support/browser-server.ts';
import { approvedVisa } from '../modules/transactions/helpers.ts';
import { seriousAxeViolations } from './axe.ts';

const screenshotsDir = path.resolve('docs/screenshots/checkout');
const widths = [1280, 390] as const;
let h: BrowserHarness;

async function sale(extra: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
  const res = await h.api('POST', '/api/transaction/', {
    email: 'pagador@example.com',
    order: `lay-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`,
    subject: 'Mochila de trekking 40 L impermeable, color grafito',
    amount: 125990,
    urlreturn: 'https://tienda.example/volver',
    ...extra,
  });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('pending');
  return res.body as { id: string; url: string };
}

/** Pays a sale as the card form would post it, so its link shows the result page. */
async function paid(): Promise<string> {
  const created = await sale({ payment: 1 });
  const link = new URL(created.url);
  const form = new URLSearchParams({
    id: link.searchParams.get('id') ?? '',
    valid: link.searchParams.get('valid') ?? '',
    method: '1',
    ...approvedVisa,
  });
  const res = await fetch(`${h.server.url}/gateway/cobro`, { method: 'POST', body: form });
  expect(await res.text()).toContain('Pago exitoso');
  return created.url;
}

/** The pages, each by the link a payer would open; built once and visited at both widths. */
async function pageUrls(): Promise<
  ReadonlyArray<readonly [name: string, url: string, shows: string]>
> {
  const db = h.server.runtime.ctx.db;
  const held = await sale();
  // An attempt in flight (its lease held): the processing page.
  await db
    .updateTable('transactions')
    .set({ attempt_lease_until: new Date(Date.now() + 60 * 60_000) })
    .where('id', '=', held.id)
    .execute();
  // A sale whose currency no method takes any more (sales like it are refused when created, decision 451).
  const stranded = await sale();
  await db
    .updateTable('transactions')
    .set({ currency: 'VES' })
    .where('id', '=', stranded.id)
    .execute();
  return [
    ['methods', (await sale()).url, 'Elige cómo pagar'],
    ['card', `${(await sale()).url}&method=1`, 'Número de tarjeta'],
    ['bank', `${(await sale()).url}&method=2`, 'Clave'],
    ['processing', held.url, 'Estamos procesando tu pago'],
    ['no-method', stranded.url, 'No hay medios de pago disponibles'],
    ['result', await paid(), 'Pago exitoso'],
    [
      'invalid-link',
      `${h.server.url}/gateway/cobro?id=trxnope&valid=x`,
      'Enlace de pago no válido',
    ],
  ];
}

/** Opens a page, checks what every checkout page must hold at this width, and keeps its screenshot. */
async function visit(page: Page, url: string, name: string, width: number): Promise<string> {
  await page.goto(url);
  expect(await seriousAxeViolations(page), `${name} at ${width}`).toEqual([]);
  expect(
    await page.evaluate('document.documentElement.scrollWidth'),
    `${name} at ${width}: horizontal scroll`,
  ).toBeLessThanOrEqual(width);
  await page.screenshot({
    path: path.join(screenshotsDir, `${name}-${width}.png`),
    fullPage: true,
  });
  return page.locator('main').innerText();
}

/** How many lines the receipt's longest value takes (the shop and the order wrapped in a narrow column at 390 px). */
async function receiptValueLinesMax(page: Page): Promise<number> {
  return page.evaluate(`Math.max(...[...document.querySelectorAll('dl.receipt dd')]
    .map((dd) => Math.round(dd.getBoundingClientRect().height / (parseFloat(getComputedStyle(dd).fontSize) * 1.2))))`);
}

beforeAll(async () => {
  h = await startBrowserHarness('Outdoor Cordillera SpA');
  fs.mkdirSync(screenshotsDir, { recursive: true });
});

afterAll(async () => {
  await h?.close();
});

describe("the payer's checkout pages at 1280 and 390 px", () => {
  it('every page is axe-clean, fits the screen and has its screenshot', async () => {
    const pages = await pageUrls();
    for (const width of widths) {
      const context = await h.browser.newContext({
        viewport: { width, height: width === 390 ? 844 : 900 },
      });
      const page = await context.newPage();
      for (const [name, url, shows] of pages) {
        expect(await visit(page, url, name, width), `${name} at ${width}`).toContain(shows);
        if (name === 'result')
          expect(await receiptValueLinesMax(page), `receipt at ${width}`).toBe(1);
      }
      await context.close();
    }
  }, 120_000);
});

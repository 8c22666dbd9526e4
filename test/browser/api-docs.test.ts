// /docs in a real Chromium (issue 32 point 7): Swagger UI renders the API, axe-core finds no critical or serious
// violation at a desktop's 1280 px and a phone's 390 px, the page fits the phone, and its assets come compressed.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { startBrowserHarness, type BrowserHarness } from '../support/browser-server.ts';

const screenshotsDir = path.resolve('docs/screenshots');
let h: BrowserHarness;
beforeAll(async () => {
  h = await startBrowserHarness('Docs');
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** axe-core's critical and serious findings, as `rule (impact): count × first targets`. */
async function axeProblems(page: Page): Promise<string[]> {
  const result = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] })",
  )) as axe.AxeResults;
  return result.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes.length} × ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}`,
    );
}

describe('/docs in Chromium', () => {
  for (const width of [1280, 390]) {
    it(`renders the API at ${width} px with no critical or serious axe violation`, async () => {
      const context = await h.browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const encodings: Record<string, string> = {};
      page.on('response', (r) => {
        if (r.url().includes('/docs/static/'))
          encodings[new URL(r.url()).pathname] = r.headers()['content-encoding'] ?? '';
      });
      await page.goto(`${h.server.url}/docs`);
      await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
      await page.addScriptTag({ content: axe.source });
      expect(await axeProblems(page)).toEqual([]);
      // One operation opened, as a reader would: its parameters, example bodies and "Try it out".
      await page.locator('.opblock-post .opblock-summary-control').first().click();
      await page.locator('.opblock.is-open .try-out').first().waitFor();
      expect(await axeProblems(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        width,
      );
      expect(encodings['/docs/static/swagger-ui-bundle.js']).toMatch(/^(br|gzip)$/);
      await page.screenshot({ path: path.join(screenshotsDir, `api-docs-${width}.png`) });
      await context.close();
    }, 120_000);
  }
});

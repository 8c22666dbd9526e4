// GET / in a browser (issue 32 point 4): the sandbox's page links the dashboard, the docs and a first signed call,
// production's says the name and status only; both axe-clean at a phone's width.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { testConfig } from '../support/app.ts';
import { cloneTestDatabase } from '../support/database.ts';
import { freePort } from '../support/net.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { seriousAxeViolations } from './axe.ts';

let browser: Browser;
const servers: RunningServer[] = [];

async function serve(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const server = await startServer(
    testConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ...env,
    }),
    { handle: await cloneTestDatabase() },
  );
  servers.push(server);
  return server;
}

beforeAll(async () => {
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
  for (const s of servers) await s.close();
});

describe('GET / in a browser', () => {
  it('in sandbox, links the dashboard and the docs and shows a first signed call', async () => {
    const server = await serve();
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const res = await page.goto(`${server.url}/`);
    expect(res?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('[Sandbox] Cobro');
    await expect(
      page.getByRole('link', { name: 'Panel del comercio' }).getAttribute('href'),
    ).resolves.toBe('/dashboard');
    await expect(
      page.getByRole('link', { name: 'Documentación de la API' }).getAttribute('href'),
    ).resolves.toBe('/docs');
    await expect(page.locator('pre').textContent()).resolves.toContain(
      `curl -s ${server.url}/api/account`,
    );
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Panel del comercio' }).click();
    await page.waitForURL(/\/dashboard/);
    await page.close();
  });

  it('in production, says only the name and that it is up', async () => {
    const server = await serve({ COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${server.url}/`);
    await expect(page.locator('main').textContent()).resolves.toBe(
      'CobroEl servicio está funcionando.',
    );
    await expect(page.locator('a').count()).resolves.toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.close();
  });
});

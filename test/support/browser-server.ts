// A real server on a free loopback port with a fresh database, one merchant account and a headless Chromium
// (Debian's, through playwright-core), for browser tests of flows other than issue 5's checkout file.
import { chromium, type Browser, type Page } from 'playwright-core';
import { testConfig } from './app.ts';
import { cloneTestDatabase } from './database.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createAccount, type AccountView } from '../../src/modules/accounts/service.ts';
import { computeSign } from '../../src/platform/auth/sign.ts';
import { freePort } from './net.ts';

export interface BrowserHarness {
  readonly server: RunningServer;
  readonly browser: Browser;
  readonly accountId: string;
  /** A JSON request with the account's Bearer token; `sign` adds a valid Sign header. */
  api(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: Record<string, unknown>,
    sign?: boolean,
  ): Promise<{ status: number; body: Record<string, any> }>;
  /** A page that records every request leaving the loopback servers the test knows. */
  newPage(allowedOrigins?: readonly string[]): Promise<{ page: Page; foreign: string[] }>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
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
}

/** A JSON request to the server at `baseUrl` with an account's Bearer token; `sign` adds a valid Sign header. */
export async function apiCall(
  baseUrl: string,
  tokens: { readonly publicToken: string; readonly privateToken: string },
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: Record<string, unknown>,
  sign = false,
): Promise<{ status: number; body: Record<string, any> }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${tokens.publicToken}`,
    accept: 'application/json',
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (sign) headers.sign = computeSign(tokens.privateToken, url.split('?')[0]!, body ?? {});
  const res = await fetch(`${baseUrl}${url}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

export async function startBrowserHarness(accountName: string): Promise<BrowserHarness> {
  const port = await freePort();
  const config = testConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  });
  const server = await startServer(config, { handle: await cloneTestDatabase() });
  const account = await createAccount(server.runtime.ctx, accountName);
  if (!account.ok) throw new Error(account.error);
  const { publicToken, privateToken, id: accountId } = account.value;
  const browser = await launchChromium();
  return {
    server,
    browser,
    accountId,
    api: (method, url, body, sign = false) =>
      apiCall(server.url, { publicToken, privateToken }, method, url, body, sign),
    async newPage(allowedOrigins = []) {
      const page = await browser.newPage({ viewport: { width: 520, height: 820 } });
      const foreign: string[] = [];
      page.on('request', (r) => {
        if (![server.url, ...allowedOrigins].some((origin) => r.url().startsWith(origin)))
          foreign.push(r.url());
      });
      return { page, foreign };
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

export interface ProductionHarness {
  readonly server: RunningServer;
  readonly browser: Browser;
  readonly account: AccountView;
  /** A JSON request with the account's Bearer token; `sign` adds a valid Sign header. */
  api(
    method: 'GET' | 'POST',
    url: string,
    body?: Record<string, unknown>,
    sign?: boolean,
  ): Promise<{ status: number; body: Record<string, any> }>;
  close(): Promise<void>;
}

/**
 * A real server in COBRO_MODE=production (a fixed secret key, plain http on loopback, no workers) with a fresh
 * database, one account and Chromium: the set-up of the production checkouts through a processor's simulator
 * (webpay-production, fintoc-production and oneclick-production.test.ts). `env` adds to the configuration.
 */
export async function startProductionHarness(
  accountName: string,
  env: Record<string, string> = {},
): Promise<ProductionHarness> {
  const port = await freePort();
  const config = testConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    COBRO_MODE: 'production',
    COBRO_SECRET_KEY: 'cd'.repeat(32),
    COBRO_WORKERS: '0',
    ...env,
  });
  const server = await startServer(config, { handle: await cloneTestDatabase() });
  const created = await createAccount(server.runtime.ctx, accountName);
  if (!created.ok) throw new Error(created.error);
  const account = created.value;
  const browser = await launchChromium();
  return {
    server,
    browser,
    account,
    api: (method, url, body, sign) => apiCall(server.url, account, method, url, body, sign),
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

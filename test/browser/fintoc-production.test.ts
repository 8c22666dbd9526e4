// A bank-transfer sale in production mode end to end in Chromium (issue 34): a real `cobro serve` in
// COBRO_MODE=production, an account with Fintoc keys pointed at the local Fintoc simulator through the real
// `fintoc` client; the payer picks the bank transfer, follows the link to "Fintoc's" page, pays, comes back and
// sees the result; Fintoc's signed webhook then arrives at the real server and changes nothing more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { seriousAxeViolations } from './axe.ts';
import { testConfig } from '../support/app.ts';
import { cloneTestDatabase } from '../support/database.ts';
import { freePort } from '../support/net.ts';
import { startFintocSimulator, type FintocSimulator } from '../support/fintoc-simulator.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { saveFintocSettings } from '../../src/platform/processors/fintoc-settings.ts';

let server: RunningServer;
let browser: Browser;
let sim: FintocSimulator;
let token: string;
let accountId: string;

async function api(method: 'GET' | 'POST', url: string, body?: unknown) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

beforeAll(async () => {
  sim = await startFintocSimulator();
  const port = await freePort();
  const config = testConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    COBRO_MODE: 'production',
    COBRO_SECRET_KEY: 'cd'.repeat(32),
    COBRO_WORKERS: '0',
  });
  server = await startServer(config, { handle: await cloneTestDatabase() });
  const ctx = server.runtime.ctx;
  const account = await createAccount(ctx, 'Tienda Cordillera');
  if (!account.ok) throw new Error(account.error);
  token = account.value.publicToken;
  accountId = account.value.id;
  await saveFintocSettings(
    ctx,
    accountId,
    {
      secretKey: sim.secretKey,
      webhookSecret: sim.webhookSecret,
      environment: sim.url,
      jwsPrivateKey: null,
      sourceAccount: null,
    },
    ctx.clock.now(),
  );
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await sim?.close();
});

describe('production bank transfer through Fintoc in Chromium', () => {
  it("pays on Fintoc's page and comes back to a paid sale; the webhook after it changes nothing", async () => {
    const methods = await api('GET', '/api/paymentmethods');
    expect(methods.body.payment_methods.map((m: { payment: number }) => m.payment)).toEqual([
      4, 19, 26,
    ]);
    const created = await api('POST', '/api/transaction/', {
      email: 'pagador@example.com',
      order: 'ord-fintoc-1',
      subject: 'Saco de dormir',
      amount: 18000,
      payment: 19,
      additional_parameters: { payer_rut: '11.111.111-1' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const page = await browser.newPage({ viewport: { width: 520, height: 820 } });
    await page.goto(created.body.url as string);
    await page.getByRole('button', { name: 'Pagar $18.000 con transferencia' }).click();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Continuar a Fintoc' }).click();
    await page.waitForURL(new RegExp(`^${sim.url}/pay/`));
    await page.click('#pay');
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago exitoso');
    expect(page.url()).toContain(`${server.url}/gateway/fintoc/return?attempt=`);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect((await api('GET', `/api/transaction/${created.body.id}`)).body.status).toBe('success');

    const session = [...sim.sessions.values()][0]!;
    const ev = sim.signedEvent('checkout_session.finished', session);
    const hook = await fetch(`${server.url}/webhooks/fintoc/${accountId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
      body: ev.body,
    });
    expect(await hook.json()).toEqual({ received: true, result: 'final' });
    await page.close();
  });
});

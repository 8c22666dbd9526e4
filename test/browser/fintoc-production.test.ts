// A bank-transfer sale in production mode end to end in Chromium (issue 34): a real `cobro serve` in
// COBRO_MODE=production, an account with Fintoc keys pointed at the local Fintoc simulator through the real
// `fintoc` client; the payer picks the bank transfer, follows the link to "Fintoc's" page, pays, comes back and
// sees the result; Fintoc's signed webhook then arrives at the real server and changes nothing more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { seriousAxeViolations } from './axe.ts';
import { startProductionHarness, type ProductionHarness } from '../support/browser-server.ts';
import { startFintocSimulator, type FintocSimulator } from '../support/fintoc-simulator.ts';
import type { RunningServer } from '../../src/server.ts';
import { saveFintocSettings } from '../../src/platform/processors/fintoc-settings.ts';

let harness: ProductionHarness;
let server: RunningServer;
let browser: Browser;
let sim: FintocSimulator;
let accountId: string;
const api: ProductionHarness['api'] = (method, url, body) => harness.api(method, url, body);

beforeAll(async () => {
  sim = await startFintocSimulator();
  harness = await startProductionHarness('Tienda Cordillera');
  ({ server, browser } = harness);
  const ctx = server.runtime.ctx;
  accountId = harness.account.id;
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
}, 180_000);

afterAll(async () => {
  await harness?.close();
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

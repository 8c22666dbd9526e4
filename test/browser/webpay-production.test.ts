// Production mode end to end in Chromium (issue 15): a real `cobro serve` in COBRO_MODE=production, an account
// whose card payments go through Webpay Plus (the real transbank-sdk) pointed at the local simulator of
// Transbank's REST protocol; the payer picks Webpay, continues to "Transbank's" page, pays with the integration
// VISA, comes back, sees the result and returns to the shop. The success callback carries the authorization code
// and reaches the merchant's receiver on 127.0.0.1, signed: production delivers only to public https hosts, except
// origins the operator trusts (CALLBACK_TRUSTED_ORIGINS, decision 151), which is how this receiver is named.
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './axe.ts';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { startProductionHarness, type ProductionHarness } from '../support/browser-server.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../support/webpay-simulator.ts';
import type { RunningServer } from '../../src/server.ts';
import { saveWebpaySettings } from '../../src/platform/processors/account-processors.ts';
import { deliverDueNotifications } from '../../src/platform/notifications/deliver.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

let harness: ProductionHarness;
let server: RunningServer;
let browser: Browser;
let sim: WebpaySimulator;
let shop: http.Server;
let shopUrl: string;
let accountId: string;
let webhookSecret: string;
let receiver: Receiver;
const api: ProductionHarness['api'] = (method, url, body) => harness.api(method, url, body);

beforeAll(async () => {
  sim = await startWebpaySimulator();
  receiver = await startReceiver(() => 204);
  shop = http.createServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>Tienda</title><h1>De vuelta en la tienda</h1>');
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as net.AddressInfo).port}`;
  harness = await startProductionHarness('Tienda Andes', {
    CALLBACK_TRUSTED_ORIGINS: receiver.url,
  });
  ({ server, browser } = harness);
  const ctx = server.runtime.ctx;
  accountId = harness.account.id;
  webhookSecret = harness.account.webhookSecret;
  await saveWebpaySettings(
    ctx,
    accountId,
    { commerceCode: sim.commerceCode, apiKey: sim.apiKey, environment: sim.url },
    ctx.clock.now(),
  );
}, 180_000);

afterAll(async () => {
  await harness?.close();
  await sim?.close();
  await receiver?.close();
  await new Promise((resolve) => shop?.close(resolve));
});

describe('production checkout through Webpay Plus in Chromium', () => {
  it("pays through Transbank's page and the merchant's success callback carries the authorization code", async () => {
    const methods = await api('GET', '/api/paymentmethods');
    expect(methods.body.payment_methods.map((m: { payment: number }) => m.payment)).toEqual([
      1, 100, 101, 102,
    ]);
    const created = await api('POST', '/api/transaction/', {
      email: 'pagador@example.com',
      order: 'ord-prod-1',
      subject: 'Zapatillas de trekking',
      amount: 25000,
      urlreturn: `${shopUrl}/return`,
      urlnotify: `${receiver.url}/notify`,
    });
    expect(created.status).toBe(200);
    const page = await browser.newPage({ viewport: { width: 520, height: 820 } });
    await page.goto(created.body.url as string);
    await expect(page.content()).resolves.not.toContain('ETpay');
    await page.getByRole('link', { name: /^Webpay\s*Visa/ }).click();
    await page.getByRole('button', { name: 'Pagar $25.000 con Webpay' }).click();
    await page.getByRole('button', { name: 'Continuar a Webpay' }).click();
    await page.waitForURL(`${sim.url}/webpayserver/initTransaction`);
    await expect(page.getByTestId('sim-amount').textContent()).resolves.toBe('Monto: 25000');
    await page.fill('#card', '4051 8856 0044 6623');
    await page.click('#pay');
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago exitoso');
    expect(page.url()).toContain(`${server.url}/gateway/webpay/return?token_ws=`);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Volver a Tienda Andes' }).click();
    await page.waitForURL(`${shopUrl}/return`, { timeout: 10_000 });
    await expect(page.textContent('h1')).resolves.toBe('De vuelta en la tienda');

    const simTx = [...sim.transactions.values()].find((x) => x.sessionId === created.body.id)!;
    expect(simTx).toMatchObject({ state: 'AUTHORIZED', commits: 1 });
    const got = (await api('GET', `/api/transaction/${created.body.id}`)).body;
    expect(got.status).toBe('success');
    expect(got.payment).toMatchObject({
      authorization_code: simTx.authorizationCode,
      last_4_digits: '6623',
      card_type: 'VN',
      installments: 0,
      media: 'Webpay',
    });
    // The real delivery path (claim, sign, POST, record), run here rather than by the workers so nothing waits on timing.
    expect(await deliverDueNotifications(server.runtime.ctx, { accountId })).toBe(1);
    const hits = receiver.requests.filter((r) => r.path === '/notify');
    expect(hits).toHaveLength(1);
    const payload = new Webhook(webhookSecret).verify(
      hits[0]!.body,
      hits[0]!.headers as Record<string, string>,
    );
    expect(payload).toEqual({
      transaction_id: String(got.payment.transaction_id),
      payment_key: got.payment.payment_key,
      transaction_key: got.payment.transaction_key,
      verification_key: got.payment.verification_key,
      order: 'ord-prod-1',
      status: 'success',
      authorization_code: simTx.authorizationCode,
      last_4_digits: '6623',
      card_type: 'VN',
      installments: '0',
    });
    await page.close();
  });

  it("rejects a payment the payer abandons on Transbank's page, and sends the payer back to the shop", async () => {
    const created = await api('POST', '/api/transaction/', {
      email: 'pagador@example.com',
      order: 'ord-prod-2',
      subject: 'Mochila',
      amount: 12000,
      payment: 1,
      urlreturn: `${shopUrl}/return`,
    });
    const page = await browser.newPage();
    await page.goto(created.body.url as string);
    await page.getByRole('button', { name: 'Pagar $12.000 con Webpay' }).click();
    await page.getByRole('button', { name: 'Continuar a Webpay' }).click();
    await page.click('#abort');
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago rechazado');
    expect((await api('GET', `/api/transaction/${created.body.id}`)).body.status).toBe('rejected');
    // The result stays until the payer leaves it (decision 450): one click back to the shop.
    await page.getByRole('link', { name: 'Volver a Tienda Andes' }).click();
    await page.waitForURL(`${shopUrl}/return`, { timeout: 10_000 });
    await page.close();
  });

  it('answers a Webpay that does not answer with "Reintentar" and "Volver al comercio", axe-clean, and the retry goes on', async () => {
    const created = await api('POST', '/api/transaction/', {
      email: 'pagador@example.com',
      order: 'ord-prod-3',
      subject: 'Carpa',
      amount: 30000,
      payment: 1,
      urlreturn: `${shopUrl}/return`,
    });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(created.body.url as string);
    sim.createFault = 'reset';
    const answer = page.waitForResponse(
      (r) => r.url().endsWith('/gateway/cobro') && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Pagar $30.000 con Webpay' }).click();
    expect((await answer).status()).toBe(503);
    sim.createFault = 'none';
    await expect(page.getByRole('heading', { name: 'Webpay no responde' }).count()).resolves.toBe(
      1,
    );
    await expect(
      page.getByRole('link', { name: 'Volver al comercio' }).getAttribute('href'),
    ).resolves.toBe(`${shopUrl}/return`);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Reintentar' }).click();
    await page.getByRole('button', { name: 'Continuar a Webpay' }).click();
    await page.waitForURL(`${sim.url}/webpayserver/initTransaction`);
    await page.close();
  });
});

// A real browser (Debian's Chromium through playwright-core) pays on the hosted checkout of a real server, and the
// real delivery path (claim, sign, POST, record) sends the `transaction.result` callback to a merchant receiver on
// 127.0.0.1, which verifies it with the `standardwebhooks` package as a merchant would. The server runs without
// its workers, so the test drives delivery itself and nothing depends on timing.
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { testConfig } from '../support/app.ts';
import { cloneTestDatabase } from '../support/database.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { readBalance } from '../../src/platform/ledger/post.ts';
import { deliverDueNotifications } from '../../src/platform/notifications/deliver.ts';
import { formatTimestamp } from '../../src/platform/time/time-format.ts';
import { freePort } from '../support/net.ts';
import { transactionLimits } from '../../src/limits/index.ts';

const screenshotsDir = path.resolve('docs/screenshots');
let server: RunningServer;
let browser: Browser;
let receiver: http.Server;
let receiverUrl: string;
let token: string;
let accountId: string;
let webhookSecret: string;
const received: Array<{ path: string; headers: http.IncomingHttpHeaders; rawBody: string }> = [];

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

async function create(extra: Record<string, unknown> = {}) {
  const res = await api('POST', '/api/transaction/', {
    email: 'pagador@example.com',
    order: `ord-${Date.now()}`,
    subject: 'Zapatillas de trekking',
    amount: 25000,
    urlreturn: `${receiverUrl}/return`,
    urlnotify: `${receiverUrl}/notify`,
    ...extra,
  });
  expect(res.status).toBe(200);
  return res.body as { status: string; id: string; url: string };
}

async function newPage(): Promise<{ page: Page; foreign: string[] }> {
  const page = await browser.newPage({ viewport: { width: 520, height: 820 } });
  const foreign: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith(receiverUrl)) foreign.push(r.url());
  });
  return { page, foreign };
}

/** Runs the real delivery path for this account's due callbacks; the receiver has answered when it returns. */
async function deliverCallbacks(): Promise<number> {
  return deliverDueNotifications(server.runtime.ctx, { accountId });
}

/** The callback the receiver got for a payment, verified as a merchant would: signature first, then the payload. */
function verifiedCallback(paymentKey: string) {
  const hits = received.filter(
    (r) =>
      r.path === '/notify' &&
      (JSON.parse(r.rawBody) as { payment_key?: string }).payment_key === paymentKey,
  );
  expect(hits).toHaveLength(1);
  const hit = hits[0]!;
  const payload = new Webhook(webhookSecret).verify(
    hit.rawBody,
    hit.headers as Record<string, string>,
  );
  expect(() =>
    new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(
      hit.rawBody,
      hit.headers as Record<string, string>,
    ),
  ).toThrow();
  expect(hit.headers['content-type']).toBe('application/json');
  expect(hit.headers['user-agent']).toMatch(/^Cobro-Webhooks\//);
  return { payload, webhookId: String(hit.headers['webhook-id']) };
}

/** What reference §1.5 sends, built from the transaction as GET /api/transaction/{id} shows it. */
function expectedPayload(got: Record<string, any>, status: 'success' | 'failed') {
  return {
    transaction_id: String(got.payment.transaction_id),
    payment_key: got.payment.payment_key,
    transaction_key: got.payment.transaction_key,
    verification_key: got.payment.verification_key,
    order: got.order,
    status,
    // A success also carries the authorization and, paid by card, the card's facts (issue 15).
    ...(status === 'success' ? { authorization_code: got.payment.authorization_code } : {}),
    ...(status === 'success' && got.payment.last_4_digits
      ? {
          last_4_digits: got.payment.last_4_digits,
          card_type: got.payment.card_type,
          installments: String(got.payment.installments),
        }
      : {}),
  };
}

async function notificationRow(id: string) {
  return server.runtime.ctx.db
    .selectFrom('notifications')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          path: req.url ?? '',
          headers: req.headers,
          rawBody: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(204).end();
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Tienda</title><h1>De vuelta en la tienda</h1>');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}`;
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
  accountId = account.value.id;
  webhookSecret = account.value.webhookSecret;
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
  fs.mkdirSync(screenshotsDir, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('paying on the hosted checkout in Chromium', () => {
  it("pays with the approved test card, returns to urlreturn by the result page's button, delivers the signed callback and settles into the wallet", async () => {
    const created = await create({ order: 'ord-1001' });
    const { page, foreign } = await newPage();
    await page.goto(created.url);
    await expect(page.getByTestId('amount').textContent()).resolves.toBe('$25.000');
    await expect(page.textContent('h1')).resolves.toBe('Tienda Andes');
    await page.getByRole('link', { name: /^Webpay\s*Visa/ }).click();
    await page.fill('#card_number', '4051 8856 0044 6623');
    await page.fill('#expiry', '12/99');
    await page.fill('#cvv', '123');
    await page.screenshot({ path: path.join(screenshotsDir, 'checkout.png'), fullPage: true });
    await page.getByRole('button', { name: /Pagar \$25\.000/ }).click();
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago exitoso');
    await page.screenshot({ path: path.join(screenshotsDir, 'result.png'), fullPage: true });
    // The receipt stays until the payer leaves it (decision 450).
    await page.getByRole('link', { name: 'Volver a Tienda Andes' }).click();
    await page.waitForURL(`${receiverUrl}/return`, { timeout: 10_000 });
    await expect(page.textContent('h1')).resolves.toBe('De vuelta en la tienda');
    expect(foreign).toEqual([]);

    const got = await api('GET', `/api/transaction/${created.id}`);
    expect(got.body.status).toBe('success');
    expect(got.body.payment.last_4_digits).toBe('6623');
    const db = server.runtime.ctx.db;
    expect(await deliverCallbacks()).toBe(1);
    const callback = verifiedCallback(got.body.payment.payment_key);
    expect(callback.payload).toEqual(expectedPayload(got.body, 'success'));
    expect(Object.values(callback.payload as object).every((v) => typeof v === 'string')).toBe(
      true,
    );
    expect(await notificationRow(callback.webhookId)).toMatchObject({
      event_type: 'transaction.result',
      url: `${receiverUrl}/notify`,
      status: 'delivered',
      attempts: 1,
      last_status_code: 204,
    });
    expect(await deliverCallbacks()).toBe(0);

    const advanced = await api('POST', '/api/sandbox/clock/advance', { seconds: 1 });
    expect(advanced.body.processed['transaction-settlement']).toBeGreaterThanOrEqual(1);
    const income = await db
      .selectFrom('wallet_movements')
      .selectAll()
      .where('origin_liquidation', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(income).toMatchObject({
      income_expense: 'income',
      amount_minor: 25000n,
      account_id: accountId,
    });
    expect(
      await readBalance(db, { owner: accountId, code: 'wallet_available', currency: 'CLP' }),
    ).toBeGreaterThanOrEqual(25000n);
    await page.close();
  });

  it('lets the payer retry after a wrong CVV and pay, with one success callback', async () => {
    const created = await create({ payment: 1 });
    const { page } = await newPage();
    await page.goto(created.url);
    await page.fill('#card_number', '4051 8856 0044 6623');
    await page.fill('#expiry', '12/99');
    await page.fill('#cvv', '999');
    await page.click('button[type=submit]');
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'el código de seguridad (CVV) no es correcto',
    );
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      `te quedan ${transactionLimits.paymentAttemptsMax - 1} intentos`,
    );
    await expect(page.inputValue('#cvv')).resolves.toBe('');
    expect((await api('GET', `/api/transaction/${created.id}`)).body.status).toBe('pending');
    expect(await deliverCallbacks()).toBe(0);
    await page.fill('#card_number', '4051 8856 0044 6623');
    await page.fill('#expiry', '12/99');
    await page.fill('#cvv', '123');
    await page.click('button[type=submit]');
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago exitoso');
    const got = (await api('GET', `/api/transaction/${created.id}`)).body;
    expect(got.status).toBe('success');
    expect(await deliverCallbacks()).toBe(1);
    expect(verifiedCallback(got.payment.payment_key).payload).toEqual(
      expectedPayload(got, 'success'),
    );
    await page.close();
  });

  it('shows the decline of the rejected test card on each try, then delivers the signed failed callback once', async () => {
    const created = await create({ payment: 1 });
    const { page } = await newPage();
    await page.goto(created.url);
    for (let i = 1; i <= transactionLimits.paymentAttemptsMax; i++) {
      await page.fill('#card_number', '5186 0595 5959 0568');
      await page.fill('#expiry', '11/29');
      await page.fill('#cvv', '123');
      await page.click('button[type=submit]');
      if (i < transactionLimits.paymentAttemptsMax) {
        await expect(page.getByRole('alert').textContent()).resolves.toContain(
          'Tarjeta rechazada por el emisor.',
        );
        expect(await deliverCallbacks()).toBe(0);
      }
    }
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago rechazado');
    await expect(page.content()).resolves.toContain('Tarjeta rechazada por el emisor.');
    const got = (await api('GET', `/api/transaction/${created.id}`)).body;
    expect(got.status).toBe('rejected');
    expect(await deliverCallbacks()).toBe(1);
    const callback = verifiedCallback(got.payment.payment_key);
    expect(callback.payload).toEqual(expectedPayload(got, 'failed'));
    expect(await notificationRow(callback.webhookId)).toMatchObject({
      status: 'delivered',
      attempts: 1,
    });
    await page.close();
  });

  it('pays by bank transfer with the sandbox RUT and password', async () => {
    const created = await create({
      payment: 4,
      additional_parameters: { payer_rut: '11.111.111-1' },
    });
    const { page } = await newPage();
    await page.goto(created.url);
    await expect(page.inputValue('#rut')).resolves.toBe('11.111.111-1');
    await page.selectOption('#bank', '0001');
    await page.fill('#password', '123');
    await page.click('button[type=submit]');
    await expect(page.getByTestId('result').textContent()).resolves.toBe('Pago exitoso');
    const got = (await api('GET', `/api/transaction/${created.id}`)).body;
    expect(got.payment).toMatchObject({
      media: 'ETpay',
      additional_parameters: {
        payer_rut: '11.111.111-1',
        identificador: '11.111.111-1',
        banco: 'Banco de Chile',
        numero_cuenta: null,
      },
    });
    expect(await deliverCallbacks()).toBe(1);
    expect(verifiedCallback(got.payment.payment_key).payload).toEqual(
      expectedPayload(got, 'success'),
    );
    await page.close();
  });

  it('sends an expired link to urlreturn with message_error=expired, after the failed callback', async () => {
    const now = server.runtime.ctx.clock.now();
    const expired = formatTimestamp(
      new Date(now.getTime() + 6 * 60 * 1000),
      server.runtime.ctx.config.timeZone,
    );
    const created = await create({ expired });
    // The advance expires the transaction and, for this account, also delivers the callback that became due.
    await api('POST', '/api/sandbox/clock/advance', { minutes: 7 });
    const row = await server.runtime.ctx.db
      .selectFrom('transactions')
      .select(['payment_key', 'transaction_key', 'verification_key', 'number', 'order'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    const callback = verifiedCallback(row.payment_key);
    expect(callback.payload).toEqual({
      transaction_id: String(row.number),
      payment_key: row.payment_key,
      transaction_key: row.transaction_key,
      verification_key: row.verification_key,
      order: row.order,
      status: 'failed',
    });
    expect(await notificationRow(callback.webhookId)).toMatchObject({ status: 'delivered' });
    const { page } = await newPage();
    await page.goto(created.url);
    await page.waitForURL(/\/return\?/);
    expect(page.url()).toBe(`${receiverUrl}/return?message_error=expired&id=${created.id}`);
    await page.close();
  });
});

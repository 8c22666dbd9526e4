// Production payments through Webpay Plus (issue 15 points 1-3): the real `transbank-sdk` against the local
// simulator of Transbank's REST protocol (test/support/webpay-simulator.ts), over the real stack: the CLI sets the
// account's keys, the checkout sends the payer to the simulator's page, the payer comes back to the return URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../support/webpay-simulator.ts';
import { setWebpayProcessor } from '../support/webpay-shop.ts';
import {
  capturesOf,
  createTransaction,
  linkParams,
  pathOf,
} from '../modules/transactions/helpers.ts';
import { Environment } from 'transbank-sdk';
import { processorForAccount } from '../../src/platform/processors/account-processors.ts';
import { webpayEnvironments } from '../../src/platform/processors/environment-url.ts';
import { recoverLostCommits } from '../../src/modules/transactions/redirect-recovery.ts';
import { runExpiries } from '../../src/modules/transactions/expiry.ts';
import { refundLimits, transactionLimits } from '../../src/limits/index.ts';
import { runRefundDispatch } from '../../src/modules/refunds/dispatch.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;
let other: TestAccount;
const visa = '4051885600446623';
const mastercard = '5186059559590568';

beforeAll(async () => {
  sim = await startWebpaySimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) } });
  shop = await t.createAccount('Tienda Webpay');
  other = await t.createAccount('Tienda sin procesador');
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

async function row(id: string) {
  return t.ctx.db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function outbox(id: string) {
  const r = await row(id);
  return t.ctx.db
    .selectFrom('notifications')
    .selectAll()
    .where(sql<boolean>`payload->>'payment_key' = ${r.payment_key}`)
    .execute();
}

const captures = (id: string) => capturesOf(t, id);

const setProcessor = (id: string, ...extra: string[]) => setWebpayProcessor(t, id, sim, ...extra);

const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** The payer picks Webpay and is sent on: the page's form to the simulator, with its token_ws. */
async function goToWebpay(url: string, method = 1) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: form,
    payload: new URLSearchParams({ ...linkParams(url), method: String(method) }).toString(),
  });
  expect(res.statusCode).toBe(200);
  const action =
    /<form method="post" action="([^"]+)"><input type="hidden" name="token_ws" value="([0-9a-f]+)">/.exec(
      res.body,
    );
  expect(action, res.body).not.toBeNull();
  expect(String(res.headers['content-security-policy'])).toContain(`form-action 'self' ${sim.url}`);
  return { page: res, action: action![1]!, token: action![2]! };
}

/** At the simulator's page: pay with a card (or cancel), and follow Transbank's redirect back into Cobro. */
async function atWebpay(token: string, choice: { card: string; installments?: number } | 'abort') {
  const init = await fetch(`${sim.url}/webpayserver/initTransaction`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ token_ws: token }),
  });
  expect(init.status).toBe(200);
  const body: Record<string, string> =
    choice === 'abort'
      ? { token }
      : { token, card: choice.card, installments: String(choice.installments ?? 0) };
  const back = await fetch(`${sim.url}/webpayserver/${choice === 'abort' ? 'abort' : 'pay'}`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams(body),
    redirect: 'manual',
  });
  expect(back.status).toBe(303);
  const location = back.headers.get('location')!;
  expect(location).toContain(`${t.ctx.config.publicBaseUrl}/gateway/webpay/return?`);
  return t.app.inject({ method: 'GET', url: pathOf(location) });
}

describe('production without a processor', () => {
  it('lists no method and refuses every sale: no payer could pay it', async () => {
    const methods = await t.call(shop, { method: 'GET', url: '/api/paymentmethods' });
    expect(methods.json()).toEqual({ status: 'success', payment_methods: [] });
    expect(
      (await t.call(null, { method: 'GET', url: '/api/paymentmethods?currency=CLP' })).json()
        .payment_methods,
    ).toEqual([]);
    // Without `payment` too: no payer could pay it, so it is refused, not created (decision 451).
    for (const payment of [undefined, 99, 1]) {
      const any = await t.call(shop, {
        method: 'POST',
        url: '/api/transaction/',
        body: {
          email: 'p@example.com',
          order: 'x-2',
          subject: 'S',
          amount: 1000,
          ...(payment === undefined ? {} : { payment }),
        },
      });
      expect(any.statusCode).toBe(200);
      expect(any.json()).toEqual({
        status: 'failed',
        type: 'processor_not_configured',
        message_error:
          'no payment processor is configured for this account, so no payer could pay this sale; an operator sets one with cobro accounts set-processor (docs/production-payments.md)',
      });
    }
    expect(
      await t.ctx.db
        .selectFrom('transactions')
        .select('id')
        .where('account_id', '=', shop.id)
        .execute(),
    ).toEqual([]);
  });

  it('refuses a sale in a currency Webpay Plus cannot take, and strands no payer whose processor went away', async () => {
    const other = await t.createAccount('Tienda Lima');
    expect((await setProcessor(other.id, '--environment', sim.url)).exitCode).toBe(0);
    const pen = await t.call(other, {
      method: 'POST',
      url: '/api/transaction/',
      body: { email: 'p@example.com', order: 'pen-1', subject: 'S', amount: 1000, currency: 'PEN' },
    });
    expect(pen.json()).toMatchObject({ status: 'failed', type: 'currency_not_payable' });
    const back = await createTransaction(t, other, { urlreturn: 'https://shop.example/back' });
    const without = await createTransaction(t, other);
    await t.ctx.db.deleteFrom('account_processors').where('account_id', '=', other.id).execute();
    const page = await t.app.inject({ method: 'GET', url: pathOf(back.url) });
    expect(page.body).toContain('No hay medios de pago disponibles');
    expect(page.body).toContain(
      '<a class="button" href="https://shop.example/back" data-testid="back-to-merchant">Volver al comercio</a>',
    );
    const stranded = await t.app.inject({ method: 'GET', url: pathOf(without.url) });
    expect(stranded.body).toContain('No hay medios de pago disponibles');
    expect(stranded.body).toContain(
      '<p data-testid="no-way-back">No se hizo ningún cobro. Puedes cerrar esta página y volver a Tienda Lima para pagar de otra forma.</p>',
    );
  });
});

describe('cobro accounts set-processor', () => {
  it("names Transbank's hosts as the SDK does (kept apart from it, so the SDK loads at the first Webpay payment)", () => {
    expect(webpayEnvironments).toEqual({
      integration: Environment.Integration,
      production: Environment.Production,
    });
  });

  it('refuses a bad commerce code, key or environment, and an unknown account', async () => {
    expect(
      (await setWebpayProcessor(t, shop.id, { commerceCode: '1234', apiKey: 'k' })).stderr,
    ).toContain('12-digit commerce code');
    expect(
      (await setWebpayProcessor(t, shop.id, { commerceCode: sim.commerceCode, apiKey: 'a b' }))
        .exitCode,
    ).toBe(2);
    const env = await setProcessor(shop.id, '--environment', 'ftp://x');
    expect(env).toMatchObject({
      exitCode: 2,
      stderr: '--environment must be integration, production or an http(s) URL\n',
    });
    expect((await setProcessor('accnotthere')).stderr).toBe('no account with id accnotthere\n');
    expect(await t.ctx.db.selectFrom('account_processors').selectAll().execute()).toEqual([]);
  });

  it('stores the keys with the API key sealed, never printed back', async () => {
    const res = await setProcessor(shop.id, '--environment', sim.url);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout).toBe(
      `card payments of ${shop.id} go through Webpay Plus, commerce code ${sim.commerceCode}, environment ${sim.url}\n`,
    );
    const stored = await t.ctx.db
      .selectFrom('account_processors')
      .selectAll()
      .where('account_id', '=', shop.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      processor: 'webpay_plus',
      commerce_code: sim.commerceCode,
      environment: sim.url,
    });
    expect(stored.api_key_enc).not.toContain(sim.apiKey);
    expect(t.ctx.secrets.open(stored.api_key_enc)).toBe(sim.apiKey);
  });
});

describe('production with Webpay Plus', () => {
  it('lists only the CLP card methods the account can take, and refuses a bank transfer at creation', async () => {
    const mine = (await t.call(shop, { method: 'GET', url: '/api/paymentmethods' })).json()
      .payment_methods as Array<{ payment: number; currency: string }>;
    expect(mine.map((m) => [m.currency, m.payment])).toEqual([
      ['CLP', 1],
      ['CLP', 100],
      ['CLP', 101],
      ['CLP', 102],
    ]);
    expect(
      (await t.call(other, { method: 'GET', url: '/api/paymentmethods' })).json().payment_methods,
    ).toEqual([]);
    expect(
      (await t.call(null, { method: 'GET', url: '/api/paymentmethods?currency=PEN' })).json()
        .payment_methods,
    ).toEqual([]);
    const bank = await t.call(shop, {
      method: 'POST',
      url: '/api/transaction/',
      body: {
        email: 'p@example.com',
        order: 'b-1',
        subject: 'S',
        amount: 1000,
        payment: 4,
        additional_parameters: { payer_rut: '11.111.111-1' },
      },
    });
    expect(bank.json()).toMatchObject({ status: 'failed', type: 'payment_method_unavailable' });
    const page = await t.app.inject({
      method: 'GET',
      url: pathOf((await createTransaction(t, shop)).url),
    });
    expect(page.body).toContain('Webpay plus 4 a 6 cuotas');
    expect(page.body).not.toContain('ETpay');
  });

  it("pays through Transbank's page: one create and one commit, the authorization on the row, the callback and GET", async () => {
    const created = await createTransaction(t, shop, {
      payment: 1,
      urlnotify: 'https://shop.example/notify',
      urlreturn: 'https://shop.example/back',
      amount: 25000,
    });
    const form1 = await t.app.inject({ method: 'GET', url: pathOf(created.url) });
    expect(form1.body).toContain('Pagar $25.000 con Webpay');
    expect(form1.body).not.toContain('name="card_number"');
    const { token } = await goToWebpay(created.url);
    expect(sim.transactions.get(token)).toMatchObject({
      amount: 25000,
      sessionId: created.id,
      state: 'INITIALIZED',
    });
    expect(sim.transactions.get(token)!.returnUrl).toBe(
      `${t.ctx.config.publicBaseUrl}/gateway/webpay/return`,
    );
    const result = await atWebpay(token, { card: visa });
    expect(result.body).toContain('Pago exitoso');
    expect(result.body).toContain(
      'href="https://shop.example/back" data-testid="back-to-merchant">Volver a ',
    );
    expect(result.body).toContain(
      `<dt>Código de autorización</dt><dd>${sim.transactions.get(token)!.authorizationCode}</dd>`,
    );
    const r = await row(created.id);
    const simTx = sim.transactions.get(token)!;
    expect(r).toMatchObject({
      status: 'success',
      authorization_code: simTx.authorizationCode,
      card_last4: '6623',
      card_type: 'VN',
      installments: 0,
      media: 'Webpay',
    });
    expect(simTx.buyOrder).toMatch(/^att[0-9a-f]{20}$/);
    const got = (
      await t.call(shop, { method: 'GET', url: `/api/transaction/${created.id}` })
    ).json();
    expect(got.payment).toMatchObject({
      authorization_code: simTx.authorizationCode,
      last_4_digits: '6623',
      card_type: 'VN',
      installments: 0,
    });
    expect((await outbox(created.id)).map((n) => n.payload)).toEqual([
      expect.objectContaining({
        status: 'success',
        authorization_code: simTx.authorizationCode,
        last_4_digits: '6623',
        card_type: 'VN',
        installments: '0',
      }),
    ]);
    expect(await captures(created.id)).toBe(1);
    // The payer reloads the return page: nothing is committed twice.
    const again = await t.app.inject({
      method: 'GET',
      url: `/gateway/webpay/return?token_ws=${token}`,
    });
    expect(again.body).toContain('Pago exitoso');
    expect(sim.calls.filter((c) => c.token === token).map((c) => c.op)).toEqual([
      'create',
      'commit',
    ]);
    expect(await captures(created.id)).toBe(1);
  });

  it('records the instalments Transbank answers (VC)', async () => {
    const created = await createTransaction(t, shop, { payment: 101 });
    const { token } = await goToWebpay(created.url, 101);
    expect((await atWebpay(token, { card: visa, installments: 5 })).body).toContain('Pago exitoso');
    expect(await row(created.id)).toMatchObject({
      card_type: 'VC',
      installments: 5,
      media: 'Webpay plus 4 a 6 cuotas',
    });
  });

  it('lets a payer declined at Webpay try again and pay, with each try recorded and one callback', async () => {
    const created = await createTransaction(t, shop, {
      payment: 1,
      urlnotify: 'https://shop.example/notify',
    });
    const first = await goToWebpay(created.url);
    const declined = await atWebpay(first.token, { card: mastercard });
    expect(declined.body).toContain('Webpay rechazó el pago');
    expect(declined.body).toContain(
      `te quedan ${transactionLimits.paymentAttemptsMax - 1} intentos`,
    );
    expect(declined.body).toContain('con Webpay</button>');
    expect(await row(created.id)).toMatchObject({ status: 'pending', attempt_id: null });
    expect(await outbox(created.id)).toEqual([]);
    const second = await goToWebpay(created.url);
    expect(second.token).not.toBe(first.token);
    expect((await atWebpay(second.token, { card: visa })).body).toContain('Pago exitoso');
    const attempts = await t.ctx.db
      .selectFrom('payment_attempts')
      .select(['number', 'outcome', 'card_last4'])
      .where('transaction_id', '=', created.id)
      .orderBy('number')
      .execute();
    expect(attempts).toEqual([
      { number: 1, outcome: 'declined', card_last4: '0568' },
      { number: 2, outcome: 'approved', card_last4: '6623' },
    ]);
    expect((await outbox(created.id)).map((n) => n.payload)).toEqual([
      expect.objectContaining({ status: 'success' }),
    ]);
  });

  it('rejects an abandoned payment (TBK_TOKEN) cleanly: no commit, one failed callback', async () => {
    const created = await createTransaction(t, shop, {
      payment: 1,
      urlnotify: 'https://shop.example/notify',
    });
    const { token } = await goToWebpay(created.url);
    const back = await atWebpay(token, 'abort');
    expect(back.body).toContain('Pago rechazado');
    expect(back.body).toContain('Anulaste el pago en Webpay');
    expect(await row(created.id)).toMatchObject({
      status: 'rejected',
      rejection_reason: 'declined',
      gateway_message: 'aborted by payer',
    });
    expect(sim.calls.filter((c) => c.token === token).map((c) => c.op)).toEqual(['create']);
    expect((await outbox(created.id)).map((n) => n.payload)).toEqual([
      expect.objectContaining({ status: 'failed' }),
    ]);
    const attempts = await t.ctx.db
      .selectFrom('payment_attempts')
      .select('outcome')
      .where('transaction_id', '=', created.id)
      .execute();
    expect(attempts).toEqual([{ outcome: 'abandoned' }]);
    // The checkout link afterwards says it in Spanish, not in the API's English.
    const later = await t.app.inject({ method: 'GET', url: pathOf(created.url) });
    expect(later.body).toContain('Anulaste el pago: no se realizó ningún cobro.');
    expect(later.body).not.toContain('aborted by payer');
    // A late token_ws for the same payment commits nothing.
    await t.app.inject({ method: 'GET', url: `/gateway/webpay/return?token_ws=${token}` });
    expect(sim.calls.filter((c) => c.token === token).map((c) => c.op)).toEqual(['create']);
  });

  it('rejects a payment whose Webpay form timed out (TBK_ORDEN_COMPRA only), and answers 404 to unknown tokens', async () => {
    const created = await createTransaction(t, shop, { payment: 1 });
    const { token } = await goToWebpay(created.url);
    const buyOrder = sim.transactions.get(token)!.buyOrder;
    const res = await t.app.inject({
      method: 'POST',
      url: '/gateway/webpay/return',
      headers: form,
      payload: new URLSearchParams({
        TBK_ORDEN_COMPRA: buyOrder,
        TBK_ID_SESION: created.id,
      }).toString(),
    });
    expect(res.body).toContain('Pago rechazado');
    expect((await row(created.id)).status).toBe('rejected');
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/gateway/webpay/return?token_ws=${'f'.repeat(64)}`,
        })
      ).statusCode,
    ).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/gateway/webpay/return' })).statusCode).toBe(
      404,
    );
  });

  it('answers a Webpay that does not answer with "Reintentar" and "Volver al comercio" (503), and the retry pays', async () => {
    const created = await createTransaction(t, shop, {
      payment: 1,
      urlreturn: 'https://shop.example/back',
      amount: 12000,
    });
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: '/gateway/cobro',
        headers: form,
        payload: new URLSearchParams({ ...linkParams(created.url), method: '1' }).toString(),
      });
    for (const fault of ['reset', 'error'] as const) {
      sim.createFault = fault;
      const down = await post();
      sim.createFault = 'none';
      expect(down.statusCode).toBe(503);
      expect(down.headers['retry-after']).toBe('10');
      expect(down.body).toContain('Webpay no responde');
      expect(down.body).not.toMatch(/error inesperado/i);
      expect(down.body).toContain('<button type="submit" data-testid="retry">Reintentar</button>');
      expect(down.body).toContain(`<input type="hidden" name="id" value="${created.id}">`);
      expect(down.body).toContain(
        'href="https://shop.example/back" data-testid="back-to-merchant">Volver al comercio</a>',
      );
      // Nothing held or charged: the transaction is pending and free for the retry.
      expect(await row(created.id)).toMatchObject({
        status: 'pending',
        attempt_id: null,
        attempt_lease_until: null,
      });
    }
    // "Reintentar" posts the same step: now Webpay answers and the payer goes on to pay.
    const { token } = await goToWebpay(created.url);
    expect((await atWebpay(token, { card: visa })).body).toContain('Pago exitoso');
  });

  it('answers a stopped Webpay (connection refused) the same way, with no way back but words when urlreturn is absent', async () => {
    const closed = await startWebpaySimulator();
    const gone = await t.createAccount('Tienda Caída');
    expect(
      (await setWebpayProcessor(t, gone.id, closed, '--environment', closed.url)).exitCode,
    ).toBe(0);
    await closed.close();
    const created = await createTransaction(t, gone, { payment: 1 });
    const down = await t.app.inject({
      method: 'POST',
      url: '/gateway/cobro',
      headers: form,
      payload: new URLSearchParams({ ...linkParams(created.url), method: '1' }).toString(),
    });
    expect(down.statusCode).toBe(503);
    expect(down.body).toContain('Reintentar');
    expect(down.body).toContain(
      'data-testid="no-way-back">Si prefieres no esperar, puedes cerrar esta página y volver a Tienda Caída.</p>',
    );
    expect(await row(created.id)).toMatchObject({ status: 'pending', attempt_id: null });
  });

  it("asks the status when the commit's answer is lost after charging: exactly one charge, recorded as paid", async () => {
    const created = await createTransaction(t, shop, {
      payment: 1,
      urlnotify: 'https://shop.example/notify',
    });
    const { token } = await goToWebpay(created.url);
    sim.commitFault = 'hang';
    let result;
    try {
      result = await atWebpay(token, { card: visa });
    } finally {
      sim.commitFault = 'none';
    }
    expect(result.body).toContain('Pago exitoso');
    expect(sim.calls.filter((c) => c.token === token).map((c) => c.op)).toEqual([
      'create',
      'commit',
      'status',
    ]);
    expect(sim.transactions.get(token)!.commits).toBe(1);
    expect(await row(created.id)).toMatchObject({
      status: 'success',
      authorization_code: sim.transactions.get(token)!.authorizationCode,
      card_last4: '6623',
    });
    expect(await captures(created.id)).toBe(1);
    expect(await outbox(created.id)).toHaveLength(1);
  }, 60_000);

  it('keeps a lost commit undecided while Transbank is unreachable, and the recovery due work records it once', async () => {
    const created = await createTransaction(t, shop, {
      payment: 1,
      urlnotify: 'https://shop.example/notify',
      expired: '2026-03-10 12:10:00',
      urlreturn: 'https://shop.example/back',
    });
    const { token } = await goToWebpay(created.url);
    sim.commitFault = 'reset';
    sim.statusFault = 'error';
    const result = await atWebpay(token, { card: visa });
    sim.commitFault = 'none';
    expect(result.body).toContain('Estamos procesando tu pago');
    expect((await row(created.id)).status).toBe('pending');
    expect(
      await t.ctx.db
        .selectFrom('processor_sessions')
        .select('state')
        .where('token', '=', token)
        .executeTakeFirstOrThrow(),
    ).toEqual({ state: 'committing' });
    // Neither the expiry, nor the payer's reload, nor a new attempt may decide it meanwhile: Transbank may have charged.
    t.clock.advanceMs(transactionLimits.acquirer.commitRecheckMs + 1_000);
    expect(await recoverLostCommits(t.ctx, { limit: 10 })).toBe(1);
    t.clock.advanceMs(transactionLimits.acquirer.redirectLeaseMs + 60_000);
    expect(await runExpiries(t.ctx, { limit: 100 })).toBe(0);
    expect((await row(created.id)).status).toBe('pending');
    expect((await t.app.inject({ method: 'GET', url: pathOf(created.url) })).body).not.toContain(
      'con Webpay</button>',
    );
    const retry = await t.app.inject({
      method: 'POST',
      url: '/gateway/cobro',
      headers: form,
      payload: new URLSearchParams({ ...linkParams(created.url), method: '1' }).toString(),
    });
    expect(retry.body).toContain('Estamos procesando tu pago');
    expect(
      sim.calls.filter(
        (c) => c.op === 'create' && sim.transactions.get(c.token!)!.sessionId === created.id,
      ),
    ).toHaveLength(1);
    expect((await row(created.id)).status).toBe('pending');
    sim.statusFault = 'none';
    expect(await recoverLostCommits(t.ctx, { limit: 10 })).toBe(1);
    expect(await recoverLostCommits(t.ctx, { limit: 10 })).toBe(0);
    expect(await row(created.id)).toMatchObject({ status: 'success', card_last4: '6623' });
    expect(sim.transactions.get(token)!.commits).toBe(1);
    expect(await captures(created.id)).toBe(1);
    expect((await outbox(created.id)).map((n) => n.payload)).toEqual([
      expect.objectContaining({ status: 'success' }),
    ]);
  });

  it('refunds an approved Webpay payment through the processor: the refund reaches Transbank', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 9000 });
    const { token } = await goToWebpay(created.url);
    await atWebpay(token, { card: visa });
    const r = await row(created.id);
    const attempt = await t.ctx.db
      .selectFrom('payment_attempts')
      .select('id')
      .where('transaction_id', '=', created.id)
      .executeTakeFirstOrThrow();
    const processor = await processorForAccount(t.ctx, shop.id);
    const partial = await processor.refund({
      chargeIdempotencyKey: attempt.id,
      authorizationCode: r.authorization_code!,
      idempotencyKey: 'ref-1',
      amountMinor: 4000n,
      currency: 'CLP',
    });
    expect(partial).toMatchObject({ approved: true });
    expect(sim.transactions.get(token)).toMatchObject({
      refunds: [4000],
      balance: 5000,
      state: 'PARTIALLY_NULLIFIED',
    });
    const tooMuch = await processor.refund({
      chargeIdempotencyKey: attempt.id,
      authorizationCode: r.authorization_code!,
      idempotencyKey: 'ref-2',
      amountMinor: 9000n,
      currency: 'CLP',
    });
    expect(tooMuch).toEqual({ approved: false, gatewayMessage: 'Invalid amount' });
    expect(sim.calls.filter((c) => c.token === token && c.op === 'refund')).toHaveLength(2);
    expect(
      await processor.refund({
        chargeIdempotencyKey: 'attnothere',
        authorizationCode: '1',
        idempotencyKey: 'ref-3',
        amountMinor: 1n,
        currency: 'CLP',
      }),
    ).toEqual({ approved: false, gatewayMessage: 'unknown Webpay payment' });
  });

  it("POST /api/nullification of a Webpay sale is refunded by Transbank through the account's processor", async () => {
    const created = await createTransaction(t, shop, {
      payment: 1,
      amount: 7000,
      order: 'refund-webpay-1',
    });
    const { token } = await goToWebpay(created.url);
    await atWebpay(token, { card: visa });
    expect((await row(created.id)).status).toBe('success');
    const partial = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id: created.id, amount: 3000, subject: 'anulación parcial' },
    });
    expect(partial.statusCode, partial.body).toBe(200);
    expect(partial.json().nullify).toMatchObject({
      status_nullify: 'reverse_completed',
      amount: 3000,
    });
    expect(sim.transactions.get(token)).toMatchObject({ refunds: [3000], balance: 4000 });
    const rest = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id: created.id, amount: 4000, subject: 'anulación del resto' },
    });
    expect(rest.json().nullify).toMatchObject({
      status_nullify: 'reverse_completed',
      amount: 4000,
    });
    expect(sim.transactions.get(token)).toMatchObject({ refunds: [3000, 4000], balance: 0 });
    expect((await row(created.id)).status).toBe('refunded');
  });
});

describe('a refund whose answer from Transbank is lost (issue 14: record first, reconcile on retry)', () => {
  /** A paid Webpay sale, a nullification whose refund call meets the armed fault, then the retry after the lease. */
  async function lostRefund(amount: number, refund: number, fault: 'reset' | 'drop') {
    const created = await createTransaction(t, shop, {
      payment: 1,
      amount,
      order: `lost-refund-${amount}-${fault}`,
    });
    const { token } = await goToWebpay(created.url);
    await atWebpay(token, { card: visa });
    sim.refundFault = fault;
    const first = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id: created.id, amount: refund, subject: 'anulación' },
    });
    sim.refundFault = 'none';
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().nullify.status_nullify).toBe('complete');
    t.clock.advanceMs(refundLimits.dispatchLeaseMs + 1_000);
    expect(await runRefundDispatch(t.ctx, { limit: 10 })).toBe(1);
    const nullification = await t.ctx.db
      .selectFrom('nullifications')
      .selectAll()
      .where('transaction_id', '=', created.id)
      .executeTakeFirstOrThrow();
    return {
      token,
      nullification,
      calls: sim.calls.filter((c) => c.token === token).map((c) => c.op),
    };
  }

  it('a partial refund Transbank applied is recognised from its status, not sent twice', async () => {
    const { token, nullification, calls } = await lostRefund(8000, 3000, 'reset');
    expect(sim.transactions.get(token)).toMatchObject({ refunds: [3000], balance: 5000 });
    expect(calls).toEqual(['create', 'commit', 'refund', 'status']);
    expect(nullification.status).toBe('reverse_completed');
  });

  it('a total reversal Transbank applied is recognised, never read as refused (which would pay the merchant back too)', async () => {
    const { token, nullification } = await lostRefund(6000, 6000, 'reset');
    expect(sim.transactions.get(token)).toMatchObject({ refunds: [6000], state: 'REVERSED' });
    expect(nullification.status).toBe('reverse_completed');
  });

  it('a refund that never reached Transbank is sent on the retry, once', async () => {
    const { token, nullification, calls } = await lostRefund(7000, 2000, 'drop');
    expect(sim.transactions.get(token)).toMatchObject({ refunds: [2000], balance: 5000 });
    expect(calls).toEqual(['create', 'commit', 'refund', 'status', 'refund']);
    expect(nullification.status).toBe('reverse_completed');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import {
  approvedVisa,
  createTransaction,
  declineByCard,
  pathOf,
  payByCard,
  rejectedMastercard,
  submit,
  submitUntilRejected,
} from '../modules/transactions/helpers.ts';
import { transactionLimits } from '../../src/limits/index.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount('Tienda <Uno>');
});
afterAll(async () => {
  await t.close();
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

describe('hosted checkout GET /gateway/cobro', () => {
  it('shows merchant, subject and amount with security headers, and the CLP methods the sandbox can take', async () => {
    const created = await createTransaction(t, account, { subject: 'Polera <b>talla M</b>' });
    const res = await t.app.inject({ method: 'GET', url: pathOf(created.url) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).toContain('$25.000');
    expect(res.body).toContain('Tienda &lt;Uno&gt;');
    expect(res.body).toContain('Polera &lt;b&gt;talla M&lt;/b&gt;');
    expect(res.body).not.toContain('<b>talla');
    expect(res.body).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
    for (const name of ['Webpay', 'ETpay', 'Fintoc', 'Floid', 'Khipu'])
      expect(res.body).toContain(name);
    expect(res.body).not.toContain('MACH');
    const nonce = /nonce-([^']+)'/.exec(csp)![1]!;
    expect(res.body).toContain(`<style nonce="${nonce}">`);
  });

  it('offers PEN cards with their amount in soles, and no bank login outside CLP', async () => {
    const pen = await createTransaction(t, account, { currency: 'PEN', amount: 250050 });
    const page = await t.app.inject({ method: 'GET', url: pathOf(pen.url) });
    expect(page.body).toContain('S/\u00a02,500.50');
    expect(page.body).toContain('Tarjetas');
    expect(page.body).not.toContain('QR Interoperable');
    // VES has no method the checkout takes (Vepuy's login is not built): such a sale is refused, not left unpayable.
    const ves = await t.call(account, {
      method: 'POST',
      url: '/api/transaction/',
      body: { email: 'p@example.com', order: 'v-1', subject: 'S', amount: 100, currency: 'VES' },
    });
    expect(ves.statusCode).toBe(200);
    expect(ves.json()).toEqual({
      status: 'failed',
      type: 'currency_not_payable',
      message_error:
        'no payment method in VES can be taken by this account, so no payer could pay this sale; GET /api/paymentmethods lists what it can take',
    });
  });

  it('goes straight to the card form when payment is given, and to a method form when chosen', async () => {
    const direct = await createTransaction(t, account, { payment: 1 });
    const page = await t.app.inject({ method: 'GET', url: pathOf(direct.url) });
    expect(page.body).toContain('name="card_number"');
    expect(page.body).not.toContain('Elegir otro medio');
    const open = await createTransaction(t, account);
    const chosen = await t.app.inject({ method: 'GET', url: `${pathOf(open.url)}&method=4` });
    expect(chosen.body).toContain('name="rut"');
    expect(chosen.body).toContain('Elegir otro medio');
  });

  it("answers 404 for a forged, truncated or other transaction's token", async () => {
    const a = await createTransaction(t, account);
    const b = await createTransaction(t, account);
    const validA = new URL(a.url).searchParams.get('valid')!;
    for (const url of [
      `/gateway/cobro?id=${a.id}&valid=${'0'.repeat(32)}`,
      `/gateway/cobro?id=${a.id}&valid=${validA.slice(0, 10)}`,
      `/gateway/cobro?id=${b.id}&valid=${validA}`,
      `/gateway/cobro?id=trxnotthere&valid=${validA}`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('Enlace de pago no válido');
    }
    const post = await submit(
      t,
      `http://x/gateway/cobro?id=${b.id}&valid=${validA}`,
      1,
      approvedVisa,
    );
    expect(post.statusCode).toBe(404);
    expect((await row(b.id)).status).toBe('pending');
  });
});

describe('paying by card', () => {
  it('approves the sandbox VISA: success page with its receipt and a button back (no timed redirect), money and callback recorded', async () => {
    const { created, res } = await payByCard(t, account, {
      urlreturn: 'https://shop.example/back?o=1',
      urlnotify: 'https://shop.example/notify',
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Pago exitoso');
    // The receipt stays: no meta refresh, a button back to the shop (decision 450).
    expect(res.body).not.toContain('http-equiv="refresh"');
    expect(res.body).toMatch(
      /<a class="button" href="https:\/\/shop\.example\/back\?o=1" data-testid="back-to-merchant">Volver a [^<]+<\/a>/,
    );
    const r = await row(created.id);
    expect(r.status).toBe('success');
    expect(r.card_last4).toBe('6623');
    expect(r.card_brand).toBe('Visa');
    expect(r.card_type).toBe('VN');
    expect(r.card_token).toMatch(/^tok_/);
    const [callback, ...more] = await outbox(created.id);
    expect(more).toEqual([]);
    expect(callback!.url).toBe('https://shop.example/notify');
    expect(callback!.event_type).toBe('transaction.result');
    expect(callback!.payload).toEqual({
      transaction_id: String(r.number),
      payment_key: r.payment_key,
      transaction_key: r.transaction_key,
      verification_key: r.verification_key,
      order: 'o-1',
      status: 'success',
      authorization_code: r.authorization_code,
      last_4_digits: '6623',
      card_type: 'VN',
      installments: '0',
    });
    expect(r.authorization_code).toMatch(/^\d{6}$/);
    expect(res.body).toContain(`<dt>Código de autorización</dt><dd>${r.authorization_code}</dd>`);
    const again = await t.app.inject({ method: 'GET', url: pathOf(created.url) });
    expect(again.body).toContain('Pago exitoso');
    expect(again.body).not.toContain('name="card_number"');
  });

  it('never stores or echoes the card number or CVV', async () => {
    const { created } = await payByCard(t, account);
    const dump = JSON.stringify(await row(created.id), (_k, v) =>
      typeof v === 'bigint' ? v.toString() : v,
    );
    expect(dump).not.toContain('4051885600446623');
    const bad = await submit(t, (await createTransaction(t, account)).url, 1, {
      ...approvedVisa,
      card_number: '4051885600446624',
    });
    expect(bad.body).not.toContain('4051885600446624');
  });

  it('re-renders the form for a number failing the Luhn check, an expired card or a bad CVV, charging nothing', async () => {
    const created = await createTransaction(t, account);
    const luhn = await submit(t, created.url, 1, {
      ...approvedVisa,
      card_number: '4051 8856 0044 6624',
    });
    expect(luhn.statusCode).toBe(422);
    expect(luhn.body).toContain('El número de tarjeta no es válido');
    const past = await submit(t, created.url, 1, { ...approvedVisa, expiry: '02/26' });
    expect(past.body).toContain('La tarjeta está vencida');
    const cvv = await submit(t, created.url, 1, { ...approvedVisa, cvv: '12' });
    expect(cvv.body).toContain('código de seguridad');
    expect((await row(created.id)).status).toBe('pending');
  });

  it('rejects the declined test card and any card outside the test list once the tries run out, with one failed callback', async () => {
    const { created, res } = await declineByCard(
      t,
      account,
      { urlnotify: 'https://shop.example/n' },
      rejectedMastercard,
    );
    expect(res.body).toContain('Pago rechazado');
    expect(res.body).toContain('Tarjeta rechazada por el emisor.');
    expect((await row(created.id)).status).toBe('rejected');
    const callbacks = await outbox(created.id);
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0]!.payload).toMatchObject({ status: 'failed' });
    const other = await declineByCard(
      t,
      account,
      {},
      { card_number: '4111 1111 1111 1111', expiry: '01/31', cvv: '123' },
    );
    expect(other.res.body).toContain('solo se aceptan las tarjetas de prueba');
    const wrongCvv = await declineByCard(t, account, {}, { ...approvedVisa, cvv: '999' });
    expect(wrongCvv.res.body).toContain('CVV');
    expect((await row(wrongCvv.created.id)).status).toBe('rejected');
  });

  it('lets a payer with a wrong CVV try again and pay: each try recorded, one success callback only', async () => {
    const created = await createTransaction(t, account, { urlnotify: 'https://shop.example/n' });
    const first = await submit(t, created.url, 1, { ...approvedVisa, cvv: '999' });
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('el código de seguridad (CVV) no es correcto');
    expect(first.body).toContain(`te quedan ${transactionLimits.paymentAttemptsMax - 1} intentos`);
    expect(first.body).toContain('name="card_number"');
    expect(first.body).not.toContain('4051885600446623');
    expect(first.body).not.toContain('Pago rechazado');
    expect(await row(created.id)).toMatchObject({
      status: 'pending',
      attempt_id: null,
      attempt_lease_until: null,
      authorization_code: null,
    });
    expect(await outbox(created.id)).toEqual([]);
    const page = await t.app.inject({ method: 'GET', url: `${pathOf(created.url)}&method=1` });
    expect(page.body).toContain('name="card_number"');
    const paid = await submit(t, created.url, 1, approvedVisa);
    expect(paid.body).toContain('Pago exitoso');
    const r = await row(created.id);
    expect(r).toMatchObject({ status: 'success', card_last4: '6623' });
    const attempts = await t.ctx.db
      .selectFrom('payment_attempts')
      .selectAll()
      .where('transaction_id', '=', created.id)
      .orderBy('number')
      .execute();
    expect(attempts.map((a) => [a.number, a.outcome, a.card_last4, a.media])).toEqual([
      [1, 'declined', '6623', 'Webpay'],
      [2, 'approved', '6623', 'Webpay'],
    ]);
    expect(attempts[0]!.payer_message).toContain('CVV');
    expect(JSON.stringify(attempts)).not.toMatch(/4051885600446623|"999"/);
    const callbacks = await outbox(created.id);
    expect(callbacks.map((c) => c.payload)).toEqual([
      expect.objectContaining({ status: 'success' }),
    ]);
    const journals = await t.ctx.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('reference', '=', created.id)
      .execute();
    expect(journals.filter((j) => j.kind === 'transaction.capture')).toHaveLength(1);
  });

  it('counts down the tries and rejects on the last, with every attempt recorded and the callback sent once', async () => {
    const created = await createTransaction(t, account, { urlnotify: 'https://shop.example/n' });
    const max = transactionLimits.paymentAttemptsMax;
    for (let i = 1; i < max; i++) {
      const res = await submit(t, created.url, 1, rejectedMastercard);
      expect(res.body).toContain('Tarjeta rechazada por el emisor.');
      expect(res.body).toContain(
        max - i === 1 ? 'te queda 1 intento' : `te quedan ${max - i} intentos`,
      );
      expect((await row(created.id)).status).toBe('pending');
      expect(await outbox(created.id)).toEqual([]);
    }
    const last = await submit(t, created.url, 1, rejectedMastercard);
    expect(last.body).toContain('Pago rechazado');
    expect(await row(created.id)).toMatchObject({
      status: 'rejected',
      rejection_reason: 'declined',
      card_last4: '0568',
    });
    const attempts = await t.ctx.db
      .selectFrom('payment_attempts')
      .select(['number', 'outcome'])
      .where('transaction_id', '=', created.id)
      .orderBy('number')
      .execute();
    expect(attempts).toEqual(
      Array.from({ length: max }, (_, i) => ({ number: i + 1, outcome: 'declined' })),
    );
    expect((await outbox(created.id)).map((c) => c.payload)).toEqual([
      expect.objectContaining({ status: 'failed' }),
    ]);
    const after = await submit(t, created.url, 1, approvedVisa);
    expect(after.body).toContain('Pago rechazado');
    expect((await row(created.id)).status).toBe('rejected');
    const got = await t.call(account, { method: 'GET', url: `/api/transaction/${created.id}` });
    expect(got.json()).toMatchObject({ status: 'rejected' });
  });

  it('never records more attempts than the limit when tabs race declined submissions', async () => {
    const created = await createTransaction(t, account, { urlnotify: 'https://shop.example/n' });
    const max = transactionLimits.paymentAttemptsMax;
    await Promise.all(
      Array.from({ length: max + 3 }, () => submit(t, created.url, 1, rejectedMastercard)),
    );
    await Promise.all(
      Array.from({ length: max + 3 }, () => submit(t, created.url, 1, rejectedMastercard)),
    );
    // A tab that finds another's attempt in flight is told so and records nothing, so how many of the racing
    // submissions were recorded depends on their timing: the rest of the tries are spent one at a time.
    for (let i = 0; i < max && (await row(created.id)).status === 'pending'; i++)
      await submit(t, created.url, 1, rejectedMastercard);
    expect((await row(created.id)).status).toBe('rejected');
    const attempts = await t.ctx.db
      .selectFrom('payment_attempts')
      .select('number')
      .where('transaction_id', '=', created.id)
      .execute();
    expect(attempts).toHaveLength(max);
    expect(await outbox(created.id)).toHaveLength(1);
  });

  it('records instalments for the Webpay plus 4-6 method as card type VC', async () => {
    const created = await createTransaction(t, account, { payment: 101 });
    const res = await submit(t, created.url, 101, { ...approvedVisa, installments: '5' });
    expect(res.body).toContain('Pago exitoso');
    expect(await row(created.id)).toMatchObject({
      installments: 5,
      card_type: 'VC',
      media: 'Webpay plus 4 a 6 cuotas',
    });
  });

  it('produces exactly one success when two tabs submit at once', async () => {
    for (let round = 0; round < 5; round++) {
      const created = await createTransaction(t, account, { urlnotify: 'https://shop.example/n' });
      const results = await Promise.all(
        [1, 2, 3].map(() => submit(t, created.url, 1, approvedVisa)),
      );
      expect(results.every((r) => r.statusCode === 200)).toBe(true);
      const journals = await t.ctx.db
        .selectFrom('journal_entries')
        .select('kind')
        .where('reference', '=', created.id)
        .execute();
      expect(journals.filter((j) => j.kind === 'transaction.capture')).toHaveLength(1);
      expect(await outbox(created.id)).toHaveLength(1);
      expect((await row(created.id)).status).toBe('success');
    }
  });
});

describe('paying by bank transfer', () => {
  it('accepts the sandbox RUT and password, fixing the payer RUT the merchant gave', async () => {
    const created = await createTransaction(t, account, {
      payment: 4,
      additional_parameters: { payer_rut: '111111111', payer_bank: '0012' },
    });
    const form = await t.app.inject({ method: 'GET', url: pathOf(created.url) });
    expect(form.body).toContain('value="11.111.111-1"');
    expect(form.body).toContain('readonly');
    expect(form.body).toContain('<option value="0012" selected>');
    const other = await submit(t, created.url, 4, {
      rut: '12.345.678-5',
      password: '123',
      bank: '0012',
    });
    expect(other.statusCode).toBe(422);
    expect(other.body).toContain('El RUT debe ser el del pagador');
    const ok = await submit(t, created.url, 4, {
      rut: '11.111.111-1',
      password: '123',
      bank: '0012',
    });
    expect(ok.body).toContain('Pago exitoso');
    expect(await row(created.id)).toMatchObject({
      status: 'success',
      media: 'ETpay',
      payer_identifier: '111111111',
      payer_bank: 'Banco Estado',
      card_last4: null,
    });
  });

  it('declines other credentials, and rejects once the tries run out', async () => {
    const created = await createTransaction(t, account, {
      payment: 19,
      additional_parameters: { payer_rut: '11.111.111-1' },
    });
    const res = await submitUntilRejected(t, created.url, 19, {
      rut: '11111111-1',
      password: 'wrong',
      bank: '0001',
    });
    expect(res.body).toContain('Pago rechazado');
    expect((await row(created.id)).status).toBe('rejected');
  });

  it('lets a payer who mistyped the bank password try again, keeping the chosen bank', async () => {
    const created = await createTransaction(t, account, {
      payment: 4,
      urlnotify: 'https://shop.example/n',
      additional_parameters: { payer_rut: '11.111.111-1' },
    });
    const wrong = await submit(t, created.url, 4, {
      rut: '11.111.111-1',
      password: '321',
      bank: '0012',
    });
    expect(wrong.body).toContain('RUT o clave incorrectos');
    expect(wrong.body).toContain('Puedes intentarlo de nuevo');
    expect(wrong.body).toContain('<option value="0012" selected>');
    expect(wrong.body).not.toContain('value="321"');
    expect((await row(created.id)).status).toBe('pending');
    const ok = await submit(t, created.url, 4, {
      rut: '11.111.111-1',
      password: '123',
      bank: '0012',
    });
    expect(ok.body).toContain('Pago exitoso');
    expect((await outbox(created.id)).map((c) => c.payload)).toEqual([
      expect.objectContaining({ status: 'success' }),
    ]);
    const attempts = await t.ctx.db
      .selectFrom('payment_attempts')
      .select(['outcome', 'media'])
      .where('transaction_id', '=', created.id)
      .orderBy('number')
      .execute();
    expect(attempts).toEqual([
      { outcome: 'declined', media: 'ETpay' },
      { outcome: 'approved', media: 'ETpay' },
    ]);
  });
});

describe('expiry', () => {
  const expiring = {
    expired: '2026-03-10 12:10:00',
    urlreturn: 'https://shop.example/r?x=1',
    urlnotify: 'https://shop.example/n',
  };

  it('sends the browser to urlreturn?message_error=expired&id=... once the sandbox clock passes expired', async () => {
    const created = await createTransaction(t, account, expiring);
    const advance = await t.call(account, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { minutes: 11 },
    });
    expect(advance.json().processed['transaction-expiry']).toBe(1);
    expect(await row(created.id)).toMatchObject({
      status: 'rejected',
      rejection_reason: 'expired',
    });
    expect((await outbox(created.id))[0]!.payload).toMatchObject({ status: 'failed' });
    const res = await t.app.inject({ method: 'GET', url: pathOf(created.url) });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(
      `https://shop.example/r?x=1&message_error=expired&id=${created.id}`,
    );
    const post = await submit(t, created.url, 1, approvedVisa);
    expect(post.statusCode).toBe(303);
  });

  it('expires on the spot when the payer opens or submits an overdue link before the worker ran', async () => {
    const other = await t.createAccount('Tienda Dos');
    const created = await createTransaction(t, other, expiring);
    t.clock.advanceMs(11 * 60 * 1000);
    const res = await submit(t, created.url, 1, approvedVisa);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toContain('message_error=expired');
    expect(await row(created.id)).toMatchObject({
      status: 'rejected',
      rejection_reason: 'expired',
    });
  });
});

describe('production mode', () => {
  it('takes no sale until a real processor is configured, instead of taking test cards', async () => {
    const prod = await startTestApp({
      env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) },
    });
    try {
      const a = await prod.createAccount();
      const refused = await prod.call(a, {
        method: 'POST',
        url: '/api/transaction/',
        body: { email: 'p@example.com', order: 'p-1', subject: 'S', amount: 1000 },
      });
      expect(refused.json()).toMatchObject({ status: 'failed', type: 'processor_not_configured' });
      expect(await prod.ctx.db.selectFrom('transactions').select('id').execute()).toEqual([]);
    } finally {
      await prod.close();
    }
  }, 120_000);
});

// An adversarial review of the hosted checkout (decision 1050): a payer and an attacker through HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import {
  approvedVisa,
  capturesOf,
  createTransaction,
  linkParams,
  pathOf,
  saleStatusOf,
  submit,
} from '../modules/transactions/helpers.ts';
import { nullify, paidSale } from '../modules/refunds/helpers.ts';
import { checkoutUrl } from '../../src/modules/transactions/checkout-link.ts';
import { limits, transactionLimits } from '../../src/limits/index.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount('Tienda "Uno" <script>');
});
afterAll(async () => {
  await t.close();
});

function post(payload: string, contentType = 'application/x-www-form-urlencoded') {
  return t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: { 'content-type': contentType },
    payload,
  });
}

describe('sandbox cards as docs/payments.md §3 lists them', () => {
  const cases: ReadonlyArray<[string, string, boolean]> = [
    ['4051 8856 0044 6623', '123', true],
    ['3700 0000 0002 032', '1234', true],
    ['5186 0595 5959 0568', '123', false],
    ['4051 8842 3993 7763', '987', true],
    ['5186 0085 4123 3829', '987', false],
    ['4051 8860 0005 6590', '123', true],
    ['5186 1741 1062 9480', '123', false],
    ['4000 0000 0000 0341', '555', true],
  ];
  for (const [card_number, cvv, approved] of cases)
    it(`${card_number} with CVV ${cvv} is ${approved ? 'approved' : 'declined'}`, async () => {
      const created = await createTransaction(t, account);
      const res = await submit(t, created.url, 1, { card_number, cvv, expiry: '12/30' });
      expect(res.statusCode).toBe(200);
      expect(await saleStatusOf(t, created.id)).toBe(approved ? 'success' : 'pending');
      expect(res.body).toContain(approved ? 'Pago exitoso' : 'Tarjeta rechazada');
    });

  it('a Luhn-valid card outside the list is declined with a message that says so', async () => {
    const created = await createTransaction(t, account);
    const res = await submit(t, created.url, 1, {
      ...approvedVisa,
      card_number: '4111 1111 1111 1111',
    });
    expect(res.body).toContain('solo se aceptan las tarjetas de prueba');
    expect(await saleStatusOf(t, created.id)).toBe('pending');
  });

  it('a wrong CVV on an approving card is declined with a message that says so', async () => {
    const created = await createTransaction(t, account);
    const res = await submit(t, created.url, 1, { ...approvedVisa, cvv: '321' });
    expect(res.body).toContain('código de seguridad (CVV) no es correcto');
    expect(await saleStatusOf(t, created.id)).toBe('pending');
  });
});

describe('a sale that is no longer payable', () => {
  it('a refunded sale is not paid again, and its page says it was given back, not "Pago exitoso"', async () => {
    const id = await paidSale(t, account, 3000, 'refund-1');
    const link = await checkoutUrl(t.ctx, id);
    const partly = await nullify(t, account, { id, amount: 1000 });
    expect(partly.statusCode).toBe(200);
    expect(await saleStatusOf(t, id)).toBe('refunded partial');
    const partPage = await t.app.inject({ method: 'GET', url: pathOf(link) });
    expect(partPage.body).toContain('Pago exitoso');
    expect(partPage.body).toContain('devolvió parte de este pago');
    // What was given back and what stays charged, as the page writes money (CLP, no minor units).
    expect(partPage.body).toContain('Devuelto: $1.000. Queda cobrado: $2.000.');
    expect((await nullify(t, account, { id, amount: 2000 })).statusCode).toBe(200);
    expect(await saleStatusOf(t, id)).toBe('refunded');
    const again = await submit(t, link, 1, approvedVisa);
    expect(again.statusCode).toBe(200);
    expect(await capturesOf(t, id)).toBe(1);
    expect(await saleStatusOf(t, id)).toBe('refunded');
    for (const page of [again, await t.app.inject({ method: 'GET', url: pathOf(link) })]) {
      expect(page.body).not.toContain('Pago exitoso');
      expect(page.body).toContain('Pago devuelto');
      expect(page.body).toContain('devolvió el monto completo');
      expect(page.body).toContain('Devuelto: $3.000.');
      expect(page.body).not.toContain('Queda cobrado');
      expect(page.body).toContain('data-testid="receipt"');
    }
  });
});

describe('malformed requests', () => {
  it('answers no 500 to odd bodies and fields', async () => {
    const created = await createTransaction(t, account);
    const { id, valid } = linkParams(created.url);
    const bodies: Array<[string, string?]> = [
      [''],
      ['id=&valid=&method='],
      [`id=${id}&valid=${valid}&method=abc`],
      [`id=${id}&valid=${valid}&method=1&method=2`],
      [`id=${id}&valid=${valid}&method=1&card_number=1&card_number=2`],
      [`id=${id}&valid=${valid}&method=99999999999999999999`],
      [`id=${id}&valid=${valid}&method=1.5`],
      [`id=${id}&valid=${valid}&method=-1`],
      [`id=${id}&valid=${valid.toUpperCase()}&method=1`],
      [`id=${id}&valid=%ZZ&method=1`],
      [`id[a]=1&valid=${valid}&method=1`],
      [`id=${id}&valid=${valid}&method=1&installments=99`, undefined],
      [`id=${id}&valid=${valid}&method=101&installments=1e1`],
      [`id=${id}&valid=${valid}&method=1&expiry=13/99&cvv=%00`],
      [`id=${id}&valid=${valid}&method=4&rut=%00&password=%00&bank=%00`],
      [`id=${id}&valid=${valid}&method=4&rut=11.111.111-1&password=123&bank=%ED%A0%80`],
      [`__proto__[method]=1&constructor[prototype][x]=1&id=${id}&valid=${valid}&method=1`],
      [
        `id=${id}&valid=${valid}&method=1&card_number=${'4'.repeat(limits.checkoutFieldLengthMax + 1)}`,
      ],
      [JSON.stringify({ id, valid, method: 1 }), 'application/json'],
      ['x', 'multipart/form-data; boundary=x'],
      ['x', 'text/plain'],
      ['a'.repeat(limits.checkoutFormBytesMax + 10)],
    ];
    for (const [payload, type] of bodies) {
      const res = await post(payload, type);
      expect(res.statusCode, payload.slice(0, 80)).toBeLessThan(500);
      expect(res.headers['cache-control'], payload.slice(0, 80)).toBe('no-store');
    }
    for (const url of [
      '/gateway/cobro',
      '/gateway/cobro?id=x',
      `/gateway/cobro?id=${id}&valid=${valid}&method=x`,
      `/gateway/cobro?id=${id}&valid=${valid}&valid=${valid}`,
      `/gateway/cobro?id=${id}&valid=${'a'.repeat(5000)}`,
      `/gateway/cobro?id=${'%F0'.repeat(10)}&valid=${valid}`,
      '/gateway/cobro/',
      '/gateway/%ZZ',
      '/gateway/unknown',
      '/gateway/webpay/return?token_ws=abc',
      '/gateway/webpay/return?TBK_TOKEN=%00',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });
});

describe('links', () => {
  it("one sale's token never opens another's page", async () => {
    const a = await createTransaction(t, account);
    const b = await createTransaction(t, account);
    const la = linkParams(a.url);
    const lb = linkParams(b.url);
    const res = await t.app.inject({
      method: 'GET',
      url: `/gateway/cobro?id=${lb.id}&valid=${la.valid}`,
    });
    expect(res.statusCode).toBe(404);
    const paid = await post(
      new URLSearchParams({ id: lb.id, valid: la.valid, method: '1', ...approvedVisa }).toString(),
    );
    expect(paid.statusCode).toBe(404);
    expect(await saleStatusOf(t, b.id)).toBe('pending');
  });

  it('an amount added to the form is ignored: the sale is charged what the merchant asked', async () => {
    const created = await createTransaction(t, account, { amount: 25000 });
    const res = await submit(t, created.url, 1, {
      ...approvedVisa,
      amount: '1',
      amount_minor: '1',
      currency: 'PEN',
    });
    expect(res.body).toContain('$25.000');
    const row = await t.ctx.db
      .selectFrom('transactions')
      .select(['amount_minor', 'currency', 'status'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'success', currency: 'CLP' });
    expect(String(row.amount_minor)).toBe('25000');
  });

  it('every page with personal data is no-store, the 303 of an expiry too', async () => {
    const id = await paidSale(t, account, 4000, 'cache-1');
    const res = await t.app.inject({ method: 'GET', url: pathOf(await checkoutUrl(t.ctx, id)) });
    expect(res.body).toContain('Pago exitoso');
    expect(res.headers['cache-control']).toBe('no-store');
    const expiring = await createTransaction(t, account, {
      expired: '2026-03-10 12:10:00',
      urlreturn: 'https://shop.example/r',
    });
    t.clock.advanceMs(11 * 60 * 1000);
    const gone = await t.app.inject({ method: 'GET', url: pathOf(expiring.url) });
    expect(gone.statusCode).toBe(303);
    expect(gone.headers['cache-control']).toBe('no-store');
  });
});

describe('text from the merchant', () => {
  it('escapes a subject and a merchant name meant to break out', async () => {
    const created = await createTransaction(t, account, {
      subject: '"><img src=x onerror=alert(1)>\'',
      urlreturn: 'https://shop.example/r?a="><script>alert(1)</script>',
    });
    const res = await t.app.inject({ method: 'GET', url: pathOf(created.url) });
    expect(res.body).not.toContain('<img');
    expect(res.body).not.toContain('<script');
    const paid = await submit(t, created.url, 1, approvedVisa);
    expect(paid.body).not.toContain('<img');
    expect(paid.body).not.toContain('<script');
  });

  it('refuses a javascript: urlreturn', async () => {
    const res = await t.call(account, {
      method: 'POST',
      url: '/api/transaction/',
      body: {
        email: 'p@example.com',
        order: 'j',
        subject: 's',
        amount: 100,
        urlreturn: 'javascript:alert(1)//',
      },
    });
    expect(res.json().status).toBe('failed');
  });
});

describe('over real HTTP', () => {
  it('approved and declined cards racing from several tabs, then the back button and a resubmit: one capture, attempts within the limit', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const created = await createTransaction(t, account, { order: 'race-1' });
    const send = (method: number, fields: Record<string, string>) =>
      fetch(`${address}/gateway/cobro`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ...linkParams(created.url),
          method: String(method),
          ...fields,
        }).toString(),
      });
    const declined = { card_number: '5186 0595 5959 0568', expiry: '12/30', cvv: '123' };
    const bank = { rut: '11.111.111-1', password: '123' };
    const answers = await Promise.all([
      ...Array.from({ length: 3 }, () => send(1, approvedVisa)),
      ...Array.from({ length: 3 }, () => send(1, declined)),
      ...Array.from({ length: 2 }, () => send(4, bank)),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const again = await send(1, approvedVisa);
    expect(await again.text()).toContain('data-testid="result"');
    const attempts = await t.ctx.db
      .selectFrom('payment_attempts')
      .select('id')
      .where('transaction_id', '=', created.id)
      .execute();
    expect(attempts.length).toBeLessThanOrEqual(transactionLimits.paymentAttemptsMax);
    const status = await saleStatusOf(t, created.id);
    expect(['success', 'rejected']).toContain(status);
    expect(await capturesOf(t, created.id)).toBe(status === 'success' ? 1 : 0);
  });

  it('pages never carry the merchant keys or the payer e-mail', async () => {
    const created = await createTransaction(t, account, { email: 'secret.payer@example.com' });
    const keys = await t.ctx.db
      .selectFrom('transactions')
      .select(['payment_key', 'transaction_key', 'verification_key'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    const pages = [
      await t.app.inject({ method: 'GET', url: pathOf(created.url) }),
      await submit(t, created.url, 1, approvedVisa),
      await t.app.inject({ method: 'GET', url: pathOf(created.url) }),
    ];
    for (const p of pages) {
      for (const k of Object.values(keys)) if (k !== null) expect(p.body).not.toContain(String(k));
      expect(p.body).not.toContain('secret.payer');
      for (const secret of [account.privateToken, account.publicToken, account.webhookSecret])
        expect(p.body).not.toContain(secret);
    }
  });
});

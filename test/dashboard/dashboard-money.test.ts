// The dashboard's money pages over HTTP: wallet balances from the ledger and the movement log, payouts with their
// states, callbacks with every attempt and the resend button (the service `cobro notifications retry` runs),
// and the sandbox clock's advance button; each scoped to the signed-in account and CSRF-protected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { payByCard } from '../modules/transactions/helpers.ts';
import { dashboardBrowser } from '../support/dashboard.ts';
import { deliverDueNotifications } from '../../src/platform/notifications/deliver.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

let t: TestApp;
let shop: TestAccount;
let other: TestAccount;
let receiver: Receiver;
let failing = true;

const bank = {
  accountbank_name: 'Ana Pérez',
  accountbank_rut: '111111111',
  accountbank_sbif: '0001',
  accountbank_type: '1',
  accountbank_num: '123123123',
};

async function payout(
  account: TestAccount,
  order: string,
  amount: number,
  extra: Record<string, unknown> = {},
) {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/wallet/payout',
    sign: true,
    body: {
      email: 'p@example.com',
      subject: `Pago ${order}`,
      currency: 'CLP',
      order,
      amount,
      ...bank,
      ...extra,
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string };
}

async function callbackIdOf(account: TestAccount) {
  const row = await t.ctx.db
    .selectFrom('notifications')
    .select(['id', 'attempts', 'status'])
    .where('account_id', '=', account.id)
    .orderBy('created_at')
    .executeTakeFirstOrThrow();
  return row;
}

beforeAll(async () => {
  t = await startTestApp();
  receiver = await startReceiver(() => (failing ? 500 : 200));
  shop = await t.createAccount('Tienda Norte');
  other = await t.createAccount('Tienda Sur');
  expect(
    (
      await t.call(shop, {
        method: 'POST',
        url: '/api/sandbox/wallet/credit',
        body: { amount: 500000, reason: 'Fondos de prueba' },
      })
    ).statusCode,
  ).toBe(200);
  await payout(shop, 'PAG-1', 1000);
  await payout(shop, 'PAG-2', 1500);
  await payout(shop, 'PAG-3', 40000, { url_notify: `${receiver.url}/payout` });
  await payByCard(t, other, { order: 'OTRA-1', amount: 9990, urlnotify: `${receiver.url}/other` });
  await deliverDueNotifications(t.ctx);
}, 180_000);
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('dashboard wallet and payouts', () => {
  it('shows the ledger balances and the movements, newest first, in CLP', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const page = await b.get('/dashboard/wallet');
    expect(page.statusCode).toBe(200);
    // 500.000 credited; 1.000 paid; 1.500 reserved then given back; 40.000 reserved while it is in flight.
    expect(page.body).toMatch(/Saldo disponible<\/p>\s*<p class="figure">\$459\.000</);
    expect(page.body).toMatch(/Reservado<\/p>\s*<p class="figure">\$40\.000</);
    for (const text of [
      'Abono de prueba',
      'Fondos de prueba',
      'Pago a terceros',
      'Devolución de pago rechazado',
      'PAG-3',
      '+$500.000',
      '−$40.000',
    ])
      expect(page.body, text).toContain(text);
    expect(page.body.indexOf('PAG-3')).toBeLessThan(page.body.indexOf('Fondos de prueba'));
  });

  it("lists payouts with their states in Spanish, filters by state, and shows no other account's", async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const all = await b.get('/dashboard/payouts');
    for (const text of [
      'PAG-1',
      'PAG-2',
      'PAG-3',
      'Pagado',
      'Error bancario',
      'Pendiente',
      'Cuenta Beneficiario no Existe',
      'Ana Pérez',
      '$40.000',
    ])
      expect(all.body, text).toContain(text);
    const rejected = await b.get('/dashboard/payouts?status=banking_error');
    expect(rejected.body).toContain('PAG-2');
    expect(rejected.body).not.toContain('PAG-1');
    expect((await b.get('/dashboard/payouts?status=robado')).body).toContain('Estado desconocido.');
    const theirs = dashboardBrowser(t);
    await theirs.signIn(other);
    expect((await theirs.get('/dashboard/payouts')).body).toContain('Aún no hay pagos ni retiros.');
    expect((await theirs.get('/dashboard/wallet')).body).not.toContain('PAG-');
  });
});

describe('dashboard callbacks', () => {
  it("lists the account's callbacks and shows one with each attempt and its payload", async () => {
    const b = dashboardBrowser(t);
    await b.signIn(other);
    const list = await b.get('/dashboard/callbacks');
    expect(list.body).toContain('transaction.result');
    expect(list.body).toContain('1 notificación');
    const cb = await callbackIdOf(other);
    const detail = await b.get(`/dashboard/callbacks/${cb.id}`);
    expect(detail.statusCode).toBe(200);
    for (const text of ['Intento', 'Se reintentará', '500', 'Reenviar ahora', 'OTRA-1', cb.id])
      expect(detail.body, text).toContain(text);
    expect((await b.get('/dashboard/callbacks?status=delivered')).body).toContain(
      'No hay notificaciones en este estado.',
    );
  });

  it('resends a callback with the resend button: the next delivery is a new attempt with the same webhook-id', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(other);
    const cb = await callbackIdOf(other);
    await b.get(`/dashboard/callbacks/${cb.id}`);
    failing = false;
    const res = await b.post(`/dashboard/callbacks/${cb.id}/resend`, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/callbacks/${cb.id}?resent=ok`);
    expect(await deliverDueNotifications(t.ctx, { accountId: other.id })).toBe(1);
    const after = await callbackIdOf(other);
    expect(after).toMatchObject({ status: 'delivered', attempts: cb.attempts + 1 });
    const ids = receiver.requests
      .filter((r) => r.path === '/other')
      .map((r) => r.headers['webhook-id']);
    expect(new Set(ids)).toEqual(new Set([cb.id]));
    const page = await b.get(res.headers.location as string);
    expect(page.body).toContain('se enviará de nuevo');
    expect(page.body).toContain('Entregada');
  });

  it("refuses a resend without a valid CSRF token, and another account's callback, changing nothing", async () => {
    const cb = await callbackIdOf(other);
    const mine = dashboardBrowser(t);
    await mine.signIn(other);
    await mine.get('/dashboard/callbacks');
    const forged = await mine.post(`/dashboard/callbacks/${cb.id}/resend`, { _csrf: 'x' });
    expect(forged.statusCode).toBe(403);
    const stranger = dashboardBrowser(t);
    await stranger.signIn(shop);
    expect((await stranger.get(`/dashboard/callbacks/${cb.id}`)).statusCode).toBe(404);
    await stranger.get('/dashboard/callbacks');
    expect((await stranger.post(`/dashboard/callbacks/${cb.id}/resend`, {})).statusCode).toBe(404);
    expect(await callbackIdOf(other)).toEqual(cb);
    const signedOut = await t.app.inject({
      method: 'POST',
      url: `/dashboard/callbacks/${cb.id}/resend`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(signedOut.statusCode).toBe(303);
    expect(signedOut.headers.location).toBe('/dashboard/login');
  });
});

describe('dashboard sandbox clock', () => {
  it("advances the account's clock and runs what became due: the open payout resolves", async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const before = await b.get('/dashboard/sandbox');
    expect(before.body).toContain('Igual a la hora del servicio.');
    const bad = await b.post('/dashboard/sandbox/advance', { days: 'uno', hours: '' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('números enteros');
    const tooFar = await b.post('/dashboard/sandbox/advance', { days: '401', hours: '0' });
    expect(tooFar.statusCode).toBe(400);
    expect(
      await t.ctx.db
        .selectFrom('sandbox_clocks')
        .selectAll()
        .where('account_id', '=', shop.id)
        .execute(),
    ).toEqual([]);
    const res = await b.post('/dashboard/sandbox/advance', { days: '0', hours: '2' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/dashboard\/sandbox\?advanced=2&processed=[1-9]\d*$/);
    const page = await b.get(res.headers.location as string);
    expect(page.body).toContain('Reloj adelantado 2 horas');
    expect(page.body).toContain('2 horas adelante de la hora del servicio.');
    const payouts = await b.get('/dashboard/payouts?status=success');
    expect(payouts.body).toContain('PAG-3');
    expect((await b.get('/dashboard/wallet')).body).toMatch(
      /Reservado<\/p>\s*<p class="figure">\$0</,
    );
    // Only this account's clock moved.
    expect(
      (await t.ctx.db.selectFrom('sandbox_clocks').select('account_id').execute()).map(
        (r) => r.account_id,
      ),
    ).toEqual([shop.id]);
  });
});

describe('dashboard refunds on the timeline', () => {
  it('shows a refund of the transaction with its amount, reason and where it stands', async () => {
    const paid = await payByCard(t, shop, { order: 'REF-1', amount: 20000 });
    const refund = await t.call(shop, {
      method: 'POST',
      url: '/api/nullification',
      sign: true,
      body: { id: paid.created.id, amount: 5000, subject: 'Talla equivocada' },
    });
    expect(refund.statusCode, refund.body).toBe(200);
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const body = (await b.get(`/dashboard/transactions/${paid.created.id}`)).body;
    expect(body).toContain('Reembolso de $5.000');
    expect(body).toContain('Talla equivocada');
    expect(body).toMatch(/Reembolso (devuelto al pagador|en curso|rechazado)/);
    expect(body).toContain('Reembolsada en parte');
    expect(body.indexOf('Pagada</strong>')).toBeLessThan(body.indexOf('Reembolso de $5.000'));
  });
});

// The merchant dashboard over HTTP (app.inject), as a browser without JavaScript: sign-in with the account's tokens,
// the session and CSRF cookies, the transactions list with its filters and search, one transaction's timeline,
// and a merchant who never sees another account's data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import {
  createTransaction,
  payByCard,
  rejectedMastercard,
} from '../modules/transactions/helpers.ts';
import { dashboardBrowser } from '../support/dashboard.ts';
import { deliverDueNotifications } from '../../src/platform/notifications/deliver.ts';
import { rotateAccount } from '../../src/modules/accounts/service.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { formatMoney } from '../../src/dashboard/format.ts';

let t: TestApp;
let shop: TestAccount;
let other: TestAccount;
let receiver: Receiver;
let paidId: string;
let foreignId: string;

beforeAll(async () => {
  t = await startTestApp();
  receiver = await startReceiver(() => 200);
  shop = await t.createAccount('Tienda <Sur>');
  other = await t.createAccount('Otra tienda');
  const paid = await payByCard(t, shop, {
    order: 'ORD-1001',
    email: 'ana@example.com',
    amount: 25000,
    urlnotify: `${receiver.url}/notify`,
  });
  paidId = paid.created.id;
  await payByCard(
    t,
    shop,
    { order: 'ORD-1002', email: 'beto@example.com', amount: 1990 },
    rejectedMastercard,
  );
  await createTransaction(t, shop, {
    order: 'ORD-1003',
    email: 'carla@example.com',
    amount: 1234567,
  });
  // A second later, so "newest first" has one answer.
  t.clock.advanceMs(1000);
  await createTransaction(t, shop, { order: 'pct_100%', email: 'dora@example.com', amount: 500 });
  foreignId = (
    await createTransaction(t, other, { order: 'SECRETO-9', email: 'x@other.example', amount: 777 })
  ).id;
  await deliverDueNotifications(t.ctx);
}, 180_000);
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('formatMoney', () => {
  it('writes CLP as es-CL does with Intl.NumberFormat, and cents for PEN without a float', () => {
    expect(formatMoney(25000n, 'CLP')).toBe('$25.000');
    expect(formatMoney(1234567n, 'CLP')).toBe('$1.234.567');
    expect(formatMoney(-5000n, 'CLP')).toBe('$-5.000');
    expect(formatMoney(250050n, 'PEN')).toBe('S/\u00a02,500.50');
    expect(formatMoney(999999999999999n, 'CLP')).toBe('$999.999.999.999.999');
  });
});

describe('dashboard sign-in', () => {
  it('sends a signed-out visitor to the sign-in page, which answers HTML with strict headers and no script', async () => {
    const b = dashboardBrowser(t);
    const home = await b.get('/dashboard/transactions?status=success');
    expect(home.statusCode).toBe(303);
    expect(home.headers.location).toBe(
      '/dashboard/login?next=%2Fdashboard%2Ftransactions%3Fstatus%3Dsuccess',
    );
    const login = await b.get('/dashboard/login');
    expect(login.statusCode).toBe(200);
    expect(login.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(String(login.headers['content-security-policy'])).toContain(
      "default-src 'none'; style-src 'self'",
    );
    expect(login.headers['x-frame-options']).toBe('DENY');
    expect(login.body).toContain('<html lang="es">');
    expect(login.body).toContain('<label for="public_token">Token público</label>');
    expect(login.body).not.toContain('<script');
    const csrfCookie = login.cookies.find((c) => c.name === 'cobro_csrf');
    expect(csrfCookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
  });

  it('opens a session with both tokens: HttpOnly, SameSite=Strict and signed; then lands where it was going', async () => {
    const b = dashboardBrowser(t);
    await b.get('/dashboard/login?next=%2Fdashboard%2Ftransactions%3Fstatus%3Dsuccess');
    const res = await b.post('/dashboard/login', {
      public_token: shop.publicToken,
      private_token: shop.privateToken,
      next: '/dashboard/transactions?status=success',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/transactions?status=success');
    const session = res.cookies.find((c) => c.name === 'cobro_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
    expect(session.value).toMatch(/^[\w-]{43}\.[\w+/=-]+$/);
    const rows = await t.ctx.db
      .selectFrom('dashboard_sessions')
      .selectAll()
      .where('account_id', '=', shop.id)
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => session.value.startsWith(r.id_hash))).toBe(false);
    const page = await b.get('/dashboard/transactions');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Tienda &lt;Sur&gt;');
  });

  it('refuses a wrong private token, a missing CSRF token and an off-site redirect', async () => {
    const b = dashboardBrowser(t);
    await b.get('/dashboard/login');
    const wrong = await b.post('/dashboard/login', {
      public_token: shop.publicToken,
      private_token: other.privateToken,
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('Esos tokens no corresponden a una cuenta activa.');
    expect(b.cookies.has('cobro_session')).toBe(false);
    const forged = await b.post('/dashboard/login', {
      _csrf: 'forged',
      public_token: shop.publicToken,
      private_token: shop.privateToken,
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('Formulario vencido');
    expect(b.cookies.has('cobro_session')).toBe(false);
    await b.get('/dashboard/login');
    const offsite = await b.post('/dashboard/login', {
      public_token: shop.publicToken,
      private_token: shop.privateToken,
      next: '//evil.example/x',
    });
    expect(offsite.headers.location).toBe('/dashboard');
  });

  it('refuses a session cookie that is not signed by the service', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const value = b.cookies.get('cobro_session')!;
    b.cookies.set('cobro_session', `${value.split('.')[0]}.AAAA`);
    expect((await b.get('/dashboard/transactions')).statusCode).toBe(303);
  });

  it('ends the session on sign-out, and every session when the tokens are rotated', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const kept = b.cookies.get('cobro_session')!;
    await b.get('/dashboard/transactions');
    const out = await b.post('/dashboard/logout', {});
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/dashboard/login');
    expect(b.cookies.has('cobro_session')).toBe(false);
    b.cookies.set('cobro_session', kept);
    expect((await b.get('/dashboard/transactions')).statusCode).toBe(303);

    const rotating = await t.createAccount('Rota');
    const r = dashboardBrowser(t);
    await r.signIn(rotating);
    expect((await r.get('/dashboard/transactions')).statusCode).toBe(200);
    await rotateAccount(t.ctx, rotating.id, 'tokens');
    expect((await r.get('/dashboard/transactions')).statusCode).toBe(303);
  });

  it('limits sign-in posts per client address and answers the limit as a page with Retry-After', async () => {
    const limited = await startTestApp({ sharing: t });
    try {
      const post = () =>
        limited.app.inject({
          method: 'POST',
          url: '/dashboard/login',
          // An address of its own: the count is shared by every process on the database (decision 950).
          remoteAddress: '198.51.100.21',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'public_token=a&private_token=b',
        });
      for (let i = 0; i < 30; i++) expect((await post()).statusCode).toBe(403);
      const refused = await post();
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body).toContain('Demasiadas solicitudes');
      // Pages that are not the sign-in form keep the API's allowance.
      expect(
        (await limited.app.inject({ method: 'GET', url: '/dashboard/login' })).statusCode,
      ).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('expires a session after its lifetime', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(other);
    expect((await b.get('/dashboard/transactions')).statusCode).toBe(200);
    t.clock.advanceMs(13 * 3600 * 1000);
    expect((await b.get('/dashboard/transactions')).statusCode).toBe(303);
  });
});

describe('dashboard transactions', () => {
  it("lists the account's transactions newest first with Spanish states and CLP amounts, and no other account's", async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const page = await b.get('/dashboard/transactions');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('4 transacciones');
    for (const text of [
      'ORD-1001',
      'ORD-1002',
      'ORD-1003',
      '$25.000',
      '$1.990',
      '$1.234.567',
      'Pagada',
      'Rechazada',
      'Pendiente',
    ])
      expect(page.body).toContain(text);
    expect(page.body).not.toContain('SECRETO-9');
    expect(page.body.indexOf('pct_100%')).toBeLessThan(page.body.indexOf('ORD-1001'));
  });

  it('shows a declined try beside a pending state, and every time with its zone', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const page = (await b.get('/dashboard/transactions')).body;
    const row = (order: string) =>
      page.split('<tr>').find((r) => r.includes(`>${order}</a>`)) ?? '';
    expect(row('ORD-1002')).toContain(
      '>Pendiente</span> <span class="muted">· 1 intento rechazado</span>',
    );
    expect(row('ORD-1003')).toContain('>Pendiente</span>');
    expect(row('ORD-1003')).not.toContain('intento');
    // The test service runs in America/Santiago: -03 in summer, -04 in winter.
    expect(page).toMatch(/data-label="Fecha">\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} -0[34]</);
  });

  it('filters by state and date and searches order and email (wildcards taken literally)', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const success = await b.get('/dashboard/transactions?status=success');
    expect(success.body).toContain('1 transacción con estos filtros');
    expect(success.body).toContain('ORD-1001');
    expect(success.body).not.toContain('ORD-1003');
    expect((await b.get('/dashboard/transactions?q=beto%40example')).body).toMatch(
      /1 transacción[\s\S]*ORD-1002/,
    );
    expect((await b.get('/dashboard/transactions?q=ord-100')).body).toContain('3 transacciones');
    const literal = await b.get('/dashboard/transactions?q=100%25');
    expect(literal.body).toContain('1 transacción');
    expect(literal.body).toContain('pct_100%');
    expect((await b.get('/dashboard/transactions?q=_')).body).toContain('1 transacción');
    expect((await b.get('/dashboard/transactions?from=2026-03-10&to=2026-03-10')).body).toContain(
      '4 transacciones',
    );
    expect((await b.get('/dashboard/transactions?from=2026-03-11')).body).toContain(
      'Ninguna transacción coincide',
    );
    expect((await b.get('/dashboard/transactions?to=2026-03-09')).body).toContain(
      'Ninguna transacción coincide',
    );
  });

  it('answers a bad filter beside its field instead of an error page', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const res = await b.get('/dashboard/transactions?status=robada&from=2026-02-31&page=abc');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Estado desconocido.');
    expect(res.body).toContain('Fecha no válida (AAAA-MM-DD).');
    expect(res.body).toContain('aria-invalid="true"');
    expect(res.body).toContain('4 transacciones');
  });

  it('shows one transaction with its timeline: created, paid, settlement and the callback with its attempt', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const res = await b.get(`/dashboard/transactions/${paidId}`);
    expect(res.statusCode).toBe(200);
    const body = res.body;
    for (const text of [
      'Orden ORD-1001',
      '$25.000',
      'Creada',
      'Pagada',
      'ana@example.com',
      'Notificación transaction.result',
      'Entregada',
      'Intento 1',
      'HTTP 200',
    ]) {
      expect(body, text).toContain(text);
    }
    expect(body).toMatch(/Liquidada|Se liquidará/);
    expect(body.indexOf('Creada')).toBeLessThan(body.indexOf('Pagada</strong>'));
    if (body.includes('Se liquidará'))
      expect(body.indexOf('Pagada</strong>')).toBeLessThan(body.indexOf('Se liquidará'));
  });

  it("answers 404 for another account's transaction, showing nothing of it", async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const res = await b.get(`/dashboard/transactions/${foreignId}`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('no pertenece a tu cuenta');
    expect(res.body).not.toContain('SECRETO-9');
    expect((await b.get('/dashboard/no-such-page')).statusCode).toBe(404);
  });

  it('keeps its pages out of the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/dashboard'))).toEqual([]);
    expect(Object.keys(doc.paths)).toContain('/api/transaction/{id}');
  });

  it('leaves the API as it was: a dashboard cookie is no API credential', async () => {
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const api = await t.app.inject({
      method: 'GET',
      url: `/api/transaction/${paidId}`,
      headers: { cookie },
    });
    expect(api.statusCode).toBe(401);
    expect(api.json()).toMatchObject({ status: 'failed' });
  });
});

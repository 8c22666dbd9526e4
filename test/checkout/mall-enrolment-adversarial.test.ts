// An adversarial review of the mall's checkout and the subscription card-enrolment pages (decision 1060): a payer
// and an attacker through HTTP, as decision 1050 did for the single sale's checkout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { payMall } from '../modules/mall/helpers.ts';
import { capturesOf } from '../modules/transactions/helpers.ts';
import { nullify } from '../modules/refunds/helpers.ts';
import { createPlan, createSuClient, newCardLink } from '../modules/subscriptions/helpers.ts';
import { enrolCard } from '../../src/modules/subscriptions/enrolment.ts';
import { limits } from '../../src/limits/index.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';

const xss = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>';

let t: TestApp;
let owner: TestAccount;
let storeA: TestAccount;
let storeB: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createAccount(`Mall ${xss}`);
  storeA = await t.createAccount(`Tienda ${xss}`);
  storeB = await t.createAccount('Tienda Beta');
});
afterAll(async () => {
  await t.close();
});

const form = 'application/x-www-form-urlencoded';
const approvedVisa = { card_number: '4051 8856 0044 6623', expiry: '12/30', cvv: '123' };
const declinedMastercard = { card_number: '5186059559590568', expiry: '12/30', cvv: '123' };

let seq = 0;
async function newMall(): Promise<{ id: string; transactions: string[] }> {
  seq++;
  const res = await t.call(owner, {
    method: 'POST',
    url: '/api/mall',
    sign: true,
    body: {
      email: 'pagador-secreto@example.com',
      payment: 1,
      order: `m-${seq}`,
      urlreturn: 'https://shop.example.com/return',
      merchant: [
        [storeA.publicToken, 3000, `Zapatos ${xss}`, null, `a-${seq}`],
        [storeB.publicToken, 2000, 'Botas', null, `b-${seq}`],
      ],
    },
  });
  expect(res.json().status, res.body).toBe('success');
  const id = res.json().id as string;
  const lines = await t.ctx.db
    .selectFrom('mall_lines')
    .select('transaction_id')
    .where('mall_id', '=', id)
    .orderBy('position')
    .execute();
  return { id, transactions: lines.map((l) => l.transaction_id) };
}

async function mallStatus(id: string) {
  const row = await t.ctx.db
    .selectFrom('malls')
    .select('status')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.status;
}

async function capturesOfMall(transactions: readonly string[]) {
  let n = 0;
  for (const id of transactions) n += await capturesOf(t, id);
  return n;
}

const mallPage = (id: string) => t.app.inject({ method: 'GET', url: `/gateway/mall/${id}` });
const mallPost = (id: string, payload: string, contentType = form) =>
  t.app.inject({
    method: 'POST',
    url: `/gateway/mall/${id}`,
    headers: { 'content-type': contentType },
    payload,
  });

describe('the mall checkout', () => {
  it('pays once when the payer submits four times at once and again with the back button', async () => {
    const mall = await newMall();
    const card = new URLSearchParams({ method: '1', ...approvedVisa }).toString();
    const answers = await Promise.all([1, 2, 3, 4].map(() => mallPost(mall.id, card)));
    for (const a of answers) expect(a.statusCode).toBeLessThan(500);
    const resubmit = await mallPost(mall.id, card);
    expect(resubmit.body).toContain('Pago exitoso');
    expect(await mallStatus(mall.id)).toBe('success');
    expect(await capturesOfMall(mall.transactions)).toBe(2);
  });

  it('charges the merchant amounts whatever amount fields the form carries', async () => {
    const mall = await newMall();
    const res = await mallPost(
      mall.id,
      new URLSearchParams({
        method: '1',
        ...approvedVisa,
        amount: '1',
        amount_minor: '1',
        currency: 'USD',
      }).toString(),
    );
    expect(res.statusCode).toBe(200);
    const row = await t.ctx.db
      .selectFrom('transactions')
      .select(['amount_minor', 'status'])
      .where('id', 'in', mall.transactions)
      .execute();
    expect(row.map((r) => [String(r.amount_minor), r.status]).sort()).toEqual([
      ['2000', 'success'],
      ['3000', 'success'],
    ]);
  });

  it('answers an unknown, a cut or an overlong mall id with the bad-link page and pays nothing', async () => {
    const mall = await newMall();
    const card = new URLSearchParams({ method: '1', ...approvedVisa }).toString();
    for (const id of [
      mall.id.slice(0, -1),
      `${mall.id.slice(0, -1)}${mall.id.endsWith('0') ? '1' : '0'}`,
      'x'.repeat(500),
    ]) {
      expect([400, 404]).toContain((await mallPage(id)).statusCode);
      expect([400, 404]).toContain((await mallPost(id, card)).statusCode);
    }
    expect(await mallStatus(mall.id)).toBe('pending');
  });

  it('a declined mall is not paid by a later good card', async () => {
    const mall = await newMall();
    expect((await payMall(t, mall.id, declinedMastercard.card_number)).body).toContain(
      'Pago rechazado',
    );
    expect(await mallStatus(mall.id)).toBe('rejected');
    expect((await payMall(t, mall.id)).body).toContain('Pago rechazado');
    expect(await mallStatus(mall.id)).toBe('rejected');
    expect(await capturesOfMall(mall.transactions)).toBe(0);
  });

  it('a mall whose stores refunded the payment does not say "Pago exitoso"', async () => {
    const mall = await newMall();
    expect((await payMall(t, mall.id)).body).toContain('Pago exitoso');
    const [a, b] = mall.transactions as [string, string];
    expect((await nullify(t, storeA, { id: a, amount: 1000 })).statusCode).toBe(200);
    const partly = await mallPage(mall.id);
    expect(partly.body).toContain('Pago exitoso');
    expect(partly.body).toContain('devolvieron parte de este pago');
    expect(partly.body).toContain('Devuelto: $1.000. Queda cobrado: $4.000.');
    expect((await nullify(t, storeA, { id: a, amount: 2000 })).statusCode).toBe(200);
    expect((await nullify(t, storeB, { id: b, amount: 2000 })).statusCode).toBe(200);
    for (const page of [await mallPage(mall.id), await payMall(t, mall.id)]) {
      expect(page.body).not.toContain('Pago exitoso');
      expect(page.body).toContain('Pago devuelto');
      expect(page.body).toContain('devolvieron el monto completo');
      expect(page.body).toContain('Devuelto: $5.000.');
      expect(page.body).not.toContain('Queda cobrado');
      expect(page.body).toContain('data-testid="receipt"');
    }
    expect(await capturesOfMall(mall.transactions)).toBe(2);
  });

  it('answers no 500 to odd bodies, and every answer is no-store', async () => {
    const mall = await newMall();
    const bodies: ReadonlyArray<[string, string]> = [
      ['', form],
      ['method=', form],
      ['method=99999999999999999999', form],
      ['method=-1', form],
      ['method=1&method=2&card_number=1&card_number=2', form],
      ['method=1&__proto__[x]=1&constructor[prototype][y]=2', form],
      [`method=1&card_number=${'9'.repeat(limits.checkoutFieldLengthMax + 1)}`, form],
      ['method=1&card_number=%00%00&cvv=%ED%A0%80', form],
      ['{"method":1}', 'application/json'],
      ['method=1', 'text/plain'],
      [
        '--x\r\nContent-Disposition: form-data; name="method"\r\n\r\n1\r\n--x--',
        'multipart/form-data; boundary=x',
      ],
      [`method=1&pad=${'a'.repeat(limits.checkoutFormBytesMax + 1)}`, form],
    ];
    for (const [payload, type] of bodies) {
      const res = await mallPost(mall.id, payload, type);
      expect(res.statusCode, payload.slice(0, 60)).toBeLessThan(500);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    for (const url of [
      `/gateway/mall/${mall.id}?method=abc`,
      `/gateway/mall/${mall.id}?method=1&method=2`,
      `/gateway/mall/${mall.id}?method=999999999999`,
      '/gateway/mall/%00',
      '/gateway/mall/%E0%A4%A',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
    expect(await mallStatus(mall.id)).toBe('pending');
  });

  it('refuses a javascript: urlreturn at create, so no page links to one', async () => {
    const res = await t.call(owner, {
      method: 'POST',
      url: '/api/mall',
      sign: true,
      body: {
        email: 'pagador@example.com',
        payment: 1,
        order: 'm-js',
        urlreturn: 'javascript:alert(1)',
        merchant: [[storeB.publicToken, 2000, 'Botas', null, 'b-js']],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('urlreturn');
  });

  it('escapes store names and subjects, and shows no token, key or e-mail', async () => {
    const mall = await newMall();
    const pages = [
      await mallPage(mall.id),
      await t.app.inject({ method: 'GET', url: `/gateway/mall/${mall.id}?method=1` }),
      await payMall(t, mall.id),
    ];
    const keys = await t.ctx.db
      .selectFrom('transactions')
      .select(['payment_key', 'transaction_key', 'verification_key'])
      .where('id', 'in', mall.transactions)
      .execute();
    for (const page of pages) {
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).not.toContain('<script>alert');
      expect(page.body).not.toContain('<img src=x');
      expect(page.body).toContain('&lt;script&gt;');
      for (const secret of [
        'pagador-secreto',
        storeA.publicToken,
        storeA.privateToken,
        owner.privateToken,
        owner.webhookSecret,
        ...keys.flatMap((k) => [k.payment_key, k.transaction_key, k.verification_key]),
      ])
        if (secret !== null && secret !== '') expect(page.body).not.toContain(secret);
    }
  });
});

async function newSubscription(merchant: TestAccount, planName = '"><script>x</script>') {
  const plan = await createPlan(t, merchant, {
    name: planName,
    amount: 9990,
    url_success_payment: 'https://shop.example.com/ok',
  });
  const client = await createSuClient(t, merchant, {
    email: `secreto${Math.random().toString(16).slice(2)}@example.com`,
  });
  const res = await t.call(merchant, {
    method: 'POST',
    url: '/api/sususcription',
    sign: true,
    body: { plan, client },
  });
  expect(res.statusCode, res.body).toBe(200);
  const u = new URL(res.json().url as string);
  return {
    id: res.json().id as string,
    path: `${u.pathname}${u.search}`,
    token: u.searchParams.get('token')!,
    validacion: u.searchParams.get('validacion')!,
  };
}

const enrolPost = (payload: string, contentType = form) =>
  t.app.inject({
    method: 'POST',
    url: '/gateway/registrosuscripcion',
    headers: { 'content-type': contentType },
    payload,
  });
const enrolWith = (link: { token: string; validacion: string }, card = approvedVisa) =>
  enrolPost(new URLSearchParams({ ...link, ...card }).toString());

async function cardsOf(subscriptionId: string) {
  return t.ctx.db
    .selectFrom('su_cards')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .execute();
}

async function subscriptionStatus(id: string) {
  const row = await t.ctx.db
    .selectFrom('su_subscriptions')
    .select('status')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.status;
}

describe('the card-enrolment page', () => {
  it('enrols one card when the payer submits four times at once and again with the back button', async () => {
    const sub = await newSubscription(storeB);
    const link = { token: sub.token, validacion: sub.validacion };
    const answers = await Promise.all([1, 2, 3, 4].map(() => enrolWith(link)));
    for (const a of answers) expect(a.statusCode).toBeLessThan(500);
    expect((await enrolWith(link)).body).toContain('Tarjeta registrada');
    expect(await cardsOf(sub.id)).toHaveLength(1);
    expect(await subscriptionStatus(sub.id)).toBe('active');
  });

  it("one subscription's token with another's validacion, or a tampered one, opens nothing", async () => {
    const one = await newSubscription(storeB);
    const two = await newSubscription(storeB);
    const forged = [
      { token: one.token, validacion: two.validacion },
      { token: two.token, validacion: one.validacion },
      { token: one.token, validacion: one.validacion.toUpperCase().replace(/^./, 'F') },
      { token: one.token.toUpperCase(), validacion: one.validacion },
      { token: `${one.token}0`, validacion: one.validacion },
    ];
    for (const link of forged) {
      const q = new URLSearchParams(link).toString();
      expect(
        (await t.app.inject({ method: 'GET', url: `/gateway/registrosuscripcion?${q}` }))
          .statusCode,
      ).toBe(404);
      expect((await enrolWith(link)).statusCode).toBe(404);
    }
    expect(await cardsOf(one.id)).toHaveLength(0);
    expect(await cardsOf(two.id)).toHaveLength(0);
  });

  it('a subscription deleted after its card was enrolled no longer says it is active', async () => {
    const sub = await newSubscription(storeB);
    expect((await enrolWith(sub)).body).toContain('tu suscripción está activa');
    const del = await t.call(storeB, {
      method: 'DELETE',
      url: `/api/sususcription/${sub.id}`,
      sign: true,
    });
    expect(del.json()).toMatchObject({ status: 'success' });
    for (const page of [
      await t.app.inject({ method: 'GET', url: sub.path }),
      await enrolWith(sub),
    ]) {
      expect(page.body).not.toContain('está activa');
      expect(page.body).toContain('ya no está vigente');
    }
  });

  it('an enrolled link of a suspended subscription says it is suspended; a new card makes it active', async () => {
    const sub = await newSubscription(storeB);
    expect((await enrolWith(sub)).body).toContain('tu suscripción está activa');
    // Suspended as the billing worker leaves it once its retries on the card are spent.
    await t.ctx.db
      .updateTable('su_subscriptions')
      .set({ status: 'suspended' })
      .where('id', '=', sub.id)
      .execute();
    const reopened = await t.app.inject({ method: 'GET', url: sub.path });
    expect(reopened.body).not.toContain('está activa');
    expect(reopened.body).toContain('suspendida');
    const fresh = new URL(await newCardLink(t, storeB, sub.id));
    const resumed = await enrolWith({
      token: fresh.searchParams.get('token')!,
      validacion: fresh.searchParams.get('validacion')!,
    });
    expect(await subscriptionStatus(sub.id)).toBe('active');
    expect(resumed.body).toContain('tu suscripción está activa');
  });

  it('an enrolled link whose card was removed says so, enrols nothing, and names the card a newer link enrolled', async () => {
    const sub = await newSubscription(storeB);
    expect((await enrolWith(sub)).body).toContain('tu suscripción está activa');
    const [card] = await cardsOf(sub.id);
    const removed = await t.call(storeB, {
      method: 'POST',
      url: '/api/suscriptionsdeletecards',
      sign: true,
      body: { card: card!.id },
    });
    expect(removed.json()).toMatchObject({ status: 'Delete' });
    expect(await subscriptionStatus(sub.id)).toBe('active');
    for (const page of [
      await t.app.inject({ method: 'GET', url: sub.path }),
      await enrolWith(sub),
    ]) {
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('está activa');
      expect(page.body).toContain('La tarjeta registrada con este enlace fue eliminada');
      expect(page.body).toContain('Pide al comercio un enlace para registrar otra tarjeta');
      expect(page.body).not.toContain('https://shop.example.com/ok');
      expect(page.body).not.toContain('name="card_number"');
    }
    // The stale link enrolled nothing: the merchant's removal stands until it sends a new link.
    const live = await t.ctx.db
      .selectFrom('su_cards')
      .select('id')
      .where('subscription_id', '=', sub.id)
      .where('deleted_at', 'is', null)
      .execute();
    expect(live).toHaveLength(0);
    const fresh = new URL(await newCardLink(t, storeB, sub.id));
    await enrolWith({
      token: fresh.searchParams.get('token')!,
      validacion: fresh.searchParams.get('validacion')!,
    });
    const old = await t.app.inject({ method: 'GET', url: sub.path });
    expect(old.body).toContain('La tarjeta registrada con este enlace fue eliminada');
    expect(old.body).toContain('tu suscripción está activa con otra tarjeta');
  });

  it('a subscription deleted while its card is being checked keeps no card and does not say it is active', async () => {
    const sub = await newSubscription(storeB);
    const verificationsBefore = await t.ctx.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('kind', 'like', 'subscription.verification%')
      .execute();
    const racing = {
      ...t.ctx,
      processor: {
        ...t.ctx.processor,
        charge: async (request: Parameters<typeof t.ctx.processor.charge>[0]) => {
          const del = await t.call(storeB, {
            method: 'DELETE',
            url: `/api/sususcription/${sub.id}`,
            sign: true,
          });
          expect(del.json()).toMatchObject({ status: 'success' });
          return t.ctx.processor.charge(request);
        },
      },
    };
    const outcome = await enrolCard(racing, sub.token, {
      number: '4051885600446623',
      expiryMonth: 12,
      expiryYear: 2030,
      cvv: '123',
    });
    expect(outcome).toEqual({ kind: 'closed' });
    expect(await cardsOf(sub.id)).toHaveLength(0);
    // The CLP 50 check did go to the processor and back: the ledger records both, and still balances.
    const journals = await t.ctx.db
      .selectFrom('journal_entries')
      .select('kind')
      .where('kind', 'like', 'subscription.verification%')
      .execute();
    expect(journals.length - verificationsBefore.length).toBe(2);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
    const page = await t.app.inject({ method: 'GET', url: sub.path });
    expect(page.body).toContain('ya no está vigente');
  });

  it("refuses a javascript: url_success_payment at the plan's create, so the page never links to one", async () => {
    const res = await t.call(storeB, {
      method: 'POST',
      url: '/api/suplan',
      sign: true,
      body: { name: 'Plan js', amount: 1000, url_success_payment: 'javascript:alert(1)' },
    });
    expect(res.json().status).toBe('failed');
    expect(res.body).toContain('url_success_payment');
  });

  it('answers no 500 to odd bodies and queries, and every answer is no-store', async () => {
    const sub = await newSubscription(storeB);
    const link = new URLSearchParams({ token: sub.token, validacion: sub.validacion }).toString();
    const bodies: ReadonlyArray<[string, string]> = [
      ['', form],
      ['token=&validacion=', form],
      [`${link}&token=${sub.token}`, form],
      [`${link}&card_number=%00&cvv=%ED%A0%80`, form],
      [`${link}&__proto__[x]=1`, form],
      [`token=${'a'.repeat(limits.checkoutFieldLengthMax + 1)}&validacion=x`, form],
      [`${link}&card_number=${'9'.repeat(limits.checkoutFieldLengthMax + 1)}`, form],
      [JSON.stringify({ token: sub.token, validacion: sub.validacion }), 'application/json'],
      [link, 'text/plain'],
      [`${link}&pad=${'a'.repeat(limits.checkoutFormBytesMax + 1)}`, form],
    ];
    for (const [payload, type] of bodies) {
      for (const url of ['/gateway/registrosuscripcion', '/gateway/registrosuscripcion/oneclick']) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': type },
          payload,
        });
        expect(res.statusCode, `${url} ${payload.slice(0, 60)}`).toBeLessThan(500);
        expect(res.headers['cache-control']).toBe('no-store');
      }
    }
    for (const url of [
      '/gateway/registrosuscripcion',
      '/gateway/registrosuscripcion?token=%00&validacion=%00',
      `/gateway/registrosuscripcion?${link}&token=x`,
      `/gateway/registrosuscripcion?token=${'a'.repeat(5000)}&validacion=x`,
      '/gateway/oneclick/return',
      `/gateway/oneclick/return?TBK_TOKEN=${'a'.repeat(5000)}`,
      '/gateway/oneclick/return?TBK_TOKEN=%00',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
    expect(await cardsOf(sub.id)).toHaveLength(0);
  });

  it('escapes plan and merchant names, and shows no token, key or client e-mail', async () => {
    const sub = await newSubscription(storeA);
    const client = await t.ctx.db
      .selectFrom('su_subscriptions')
      .innerJoin('su_clients', 'su_clients.id', 'su_subscriptions.client_id')
      .select('su_clients.email')
      .where('su_subscriptions.id', '=', sub.id)
      .executeTakeFirstOrThrow();
    const pages = [
      await t.app.inject({ method: 'GET', url: sub.path }),
      await enrolWith(sub, declinedMastercard),
      await enrolWith(sub),
    ];
    for (const page of pages) {
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).not.toContain('<script>');
      expect(page.body).not.toContain('<img src=x');
      expect(page.body).toContain('&quot;&gt;&lt;script&gt;x');
      for (const secret of [
        client.email,
        storeA.publicToken,
        storeA.privateToken,
        storeA.webhookSecret,
        '4051885600446623',
      ])
        expect(page.body).not.toContain(secret);
    }
  });
});

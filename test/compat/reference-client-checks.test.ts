// Decision 1125: the checks the reference's published TypeScript SDK (nicotordev/payku-sdk, reference §0) runs on a
// callback before a merchant trusts it, replayed against Cobro. Each SDK verifier takes the callback's body, fetches
// the resource it names over the API, and compares fields (reference §1.4, §5.1, §7.14, §7.15, §9.8). A callback
// that fails them is one a merchant using the SDK throws away, so the pair (callback body, read answer) is pinned
// here as the SDK reads it: the same keys, strings compared as strings, notify `failed` read as API `rejected`.
// Beside them, two things the SDK sends that the other suites pinned only in part: a `Sign` on operations the
// reference leaves unsigned (§12.2), and membership shares with two decimals (§4.5).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { referenceSign } from '../support/reference-sign.ts';
import { createTransaction, declineByCard, payByCard } from '../modules/transactions/helpers.ts';
import { payMall } from '../modules/mall/helpers.ts';
import { createPlan, decliningCard, subscribedWithCard } from '../modules/subscriptions/helpers.ts';
import { fund, payout } from '../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let merchant: TestAccount;
let store: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('SDK merchant');
  store = await t.createAccount('SDK store');
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, any>;

/** A request as the SDK's HttpClient sends it: Bearer, and when `signed`, its buildSign (no trailing `&`). */
async function sdkRequest(method: 'GET' | 'POST', url: string, signed = false, body?: Json) {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/json',
    authorization: `Bearer ${merchant.publicToken}`,
  };
  if (signed) headers.sign = referenceSign('js', merchant.privateToken, url, body ?? {});
  const res = await t.app.inject({
    method,
    url,
    headers,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Json;
}

async function callbacks(eventType: string, url?: string): Promise<Json[]> {
  let q = t.ctx.db
    .selectFrom('notifications')
    .select('payload')
    .where('account_id', '=', merchant.id)
    .where('event_type', '=', eventType);
  if (url !== undefined) q = q.where('url', '=', url);
  return (await q.orderBy('created_at').execute()).map((r) => r.payload as Json);
}

/** The SDK's mapNotifyStatusToTransactionStatus: notify `failed` is API `rejected`. */
const apiStatus = (notify: unknown) => (String(notify) === 'failed' ? 'rejected' : String(notify));
/** The SDK's nonEmptyString: a value as trimmed text, absent when empty. */
const text = (v: unknown) =>
  v === undefined || v === null || String(v).trim() === '' ? undefined : String(v).trim();

async function advance(body: Json) {
  const res = await t.call(merchant, { method: 'POST', url: '/api/sandbox/clock/advance', body });
  expect(res.statusCode, res.body).toBe(200);
}

describe('§1.4 urlnotify, as PaykuWebhooks.verifyNotify and PaykuTransactionNotifySchema read it', () => {
  it('a paid, a declined and an expired sale: every value a string, GET /api/transaction/{payment_key} agrees', async () => {
    const notify = 'https://shop.example.com/notify';
    await payByCard(t, merchant, { order: 'sdk-paid', amount: 25000, urlnotify: notify });
    await declineByCard(t, merchant, { order: 'sdk-declined', amount: 13000, urlnotify: notify });
    // Expiry: at least five minutes ahead in Santiago time, urlreturn required (§1.1); never opened by the payer.
    const now = new Date(t.clock.now().getTime() + 10 * 60_000);
    const local = new Intl.DateTimeFormat('sv-SE', {
      timeZone: 'America/Santiago',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).format(now);
    await createTransaction(t, merchant, {
      order: 'sdk-expired',
      amount: 7000,
      urlnotify: notify,
      urlreturn: 'https://shop.example.com/return',
      expired: local,
    });
    await advance({ minutes: 30 });

    const payloads = await callbacks('transaction.result', notify);
    expect(payloads.map((p) => [p.order, p.status]).sort()).toEqual([
      ['sdk-declined', 'failed'],
      ['sdk-expired', 'failed'],
      ['sdk-paid', 'success'],
    ]);
    for (const p of payloads) {
      // PaykuTransactionNotifyRawSchema: these keys are strings when present, payment_key and status non-empty.
      for (const key of [
        'transaction_id',
        'payment_key',
        'transaction_key',
        'verification_key',
        'order',
        'status',
      ])
        expect(typeof p[key], `${p.order} ${key}`).toBe('string');
      expect(p.payment_key.length).toBeGreaterThan(0);
      const got = await sdkRequest('GET', `/api/transaction/${p.payment_key}`);
      expect(got.status, p.order).toBe(apiStatus(p.status));
      expect(got.order).toBe(p.order);
      const key = text(got.payment?.verification_key);
      if (key !== undefined) expect(key).toBe(p.verification_key);
    }
    const paid = payloads.find((p) => p.order === 'sdk-paid')!;
    const got = await sdkRequest('GET', `/api/transaction/${paid.payment_key}`);
    expect(String(got.amount)).toBe('25000');
    expect(got.payment.verification_key).toBe(paid.verification_key);
  });
});

describe('§5 the mall urlnotify, as PaykuMall.verifyNotify reads it', () => {
  it('GET /api/mall/{id} (Bearer alone) has the mapped status, the same verification_key and the amount as text', async () => {
    const notify = 'https://shop.example.com/mall';
    const ids: string[] = [];
    for (const order of [9001, 9002]) {
      const created = await sdkRequest('POST', '/api/mall', true, {
        email: 'johndoe@example.com',
        payment: 1,
        order,
        urlreturn: 'https://shop.example.com/return',
        urlnotify: notify,
        merchant: [
          [store.publicToken, '30000', 'item1', null, `${order}-1`],
          [store.publicToken, 25000, 'item2', null, `${order}-2`],
        ],
      });
      ids.push(created.id);
    }
    await payMall(t, ids[0]!);
    await payMall(t, ids[1]!, '5186 0595 5959 0568');
    const payloads = await callbacks('mall.result', notify);
    expect(payloads.map((p) => [p.id, p.status])).toEqual([
      [ids[0], 'success'],
      [ids[1], 'failed'],
    ]);
    for (const p of payloads) {
      const mall = await sdkRequest('GET', `/api/mall/${p.id}`);
      expect(mall.status).toBe(apiStatus(p.status));
      expect(text(mall.amount)).toBe(text(p.amount));
      const key = text(mall.payment?.verification_key);
      if (key !== undefined) expect(key).toBe(p.verification_key);
    }
    expect((await sdkRequest('GET', `/api/mall/${ids[0]}`)).payment.verification_key).toBe(
      payloads[0]!.verification_key,
    );
  });
});

describe('§7.14, §7.15 subscription callbacks, as verifyActivationNotify and verifyPaymentNotify read them', () => {
  it('GET /api/sususcription/{id} names the client and lists each charge with its status, order and amount', async () => {
    const activation = 'https://shop.example.com/activated';
    const payment = 'https://shop.example.com/charged';
    const plan = await createPlan(t, merchant, {
      name: 'SDK monthly',
      amount: 4990,
      url_notify_suscription: activation,
      url_notify_payment: payment,
    });
    const good = await subscribedWithCard(t, merchant, plan);
    const declining = await subscribedWithCard(t, merchant, plan, {}, decliningCard);
    for (const p of await callbacks('subscription.activation', activation)) {
      expect(Object.keys(p).sort()).toEqual(['id', 'status']);
      const sub = await sdkRequest('GET', `/api/sususcription/${p.id}`, true);
      expect(sub.status).toBe(p.status);
    }
    await advance({ days: 40 });
    const charges = await callbacks('subscription.charge', payment);
    expect(new Set(charges.map((c) => c.subscriptions.id))).toEqual(
      new Set([good.id, declining.id]),
    );
    expect(new Set(charges.map((c) => c.status))).toEqual(new Set(['success', 'rejected']));
    for (const c of charges) {
      const sub = await sdkRequest('GET', `/api/sususcription/${c.subscriptions.id}`, true);
      expect(sub.client.id).toBe(c.subscriptions.client);
      const charge = (sub.transactions as Json[]).find(
        (x) => text(x.transaction) === text(c.transaction_id),
      );
      expect(charge, `transaction ${c.transaction_id} of ${c.subscriptions.id}`).toBeDefined();
      expect(text(charge!.status)).toBe(apiStatus(c.status));
      if (text(c.order) !== undefined) expect(text(charge!.order)).toBe(text(c.order));
      const key = text(charge!.verification_key);
      if (key !== undefined) expect(key).toBe(c.verification_key);
    }
  });
});

describe('§9.8 the payout url_notify, as PaykuWallet.payouts.verifyNotify reads it', () => {
  it('GET /api/payout/{identifier_payout} and /api/payoutv3/{id} have the callback status', async () => {
    await fund(t, merchant, 10000);
    const notify = 'https://shop.example.com/payout';
    for (const [order, amount] of [
      ['sdk-po-ok', 1000],
      ['sdk-po-ko', 1500],
    ] as const)
      expect((await payout(t, merchant, { order, amount, url_notify: notify })).json().status).toBe(
        'success',
      );
    const payloads = await callbacks('payout.result', notify);
    expect(payloads.map((p) => [p.order, p.status])).toEqual([
      ['sdk-po-ok', 'success'],
      ['sdk-po-ko', 'banking_error'],
    ]);
    for (const p of payloads) {
      expect(p.id).toBe(p.identifier_payout);
      for (const path of ['payout', 'payoutv3']) {
        const got = await sdkRequest('GET', `/api/${path}/${p.identifier_payout}`, true);
        expect(got.payout.status).toBe(p.status);
      }
    }
  });
});

describe('§12.2 a Sign where the reference shows none is ignored (supplement §2.2), as the SDK sends one on maclient', () => {
  it('every Bearer-only operation answers as without it, whatever the Sign holds; the public lists ignore credentials', async () => {
    // The doc's placeholder Sign (§12.3: it verifies nothing) and the SDK's own Sign over maclient POST and DELETE.
    const placeholder = 'f96ddc14a73a4dd6e009db2514108a3f44832795cd5ac50e6a80fd0b0ae92112';
    async function bearerOnly(method: 'GET' | 'POST' | 'DELETE', url: string, body?: Json) {
      const res = await t.app.inject({
        method,
        url,
        headers: {
          authorization: `Bearer ${merchant.publicToken}`,
          'content-type': 'application/json',
          sign: placeholder,
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200);
      return res.json() as Json;
    }
    const sale = await bearerOnly('POST', '/api/transaction', {
      email: 'johndoe@example.com',
      order: 'sdk-sign-1',
      subject: 'x',
      amount: 1000,
    });
    expect(sale.status).toBe('pending');
    await bearerOnly('GET', `/api/transaction/${sale.id}`);
    await bearerOnly('GET', '/api/transaction');
    await bearerOnly('POST', '/api/escrow', { transactions: [sale.id] });
    await bearerOnly('POST', '/api/event', {
      name: 'Event',
      event: 'sdk-sign-ev',
      date_event: '2030-12-20',
      date_payment: '2030-12-22',
      date_closing_sales: '2030-12-19 23:59:00',
      affiliation: [['afiliate1@example.com', 100]],
    });
    await bearerOnly('GET', '/api/event/sdk-sign-ev');
    const date = (await bearerOnly('GET', `/api/transaction/${sale.id}`)).created_at.slice(0, 10);
    await bearerOnly('POST', '/api/conciliation', { date_init: date, date_end: date });
    const client = await sdkRequest('POST', '/api/maclient', true, {
      email: 'johndoe@example.com',
      name: 'John Doe',
      phone: '923122312',
      bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
    });
    await bearerOnly('GET', `/api/maclient/${client.id}`);
    const membership = await bearerOnly('POST', '/api/maaffiliation', {
      name: 'name',
      percentage: '20',
      affiliation: [[client.id, '80']],
    });
    await bearerOnly('GET', `/api/maaffiliation/${membership.id}`);
    await bearerOnly('POST', '/api/transaction/', {
      email: 'johndoe@example.com',
      order: 'sdk-sign-2',
      subject: 'x',
      amount: 1000,
      marketplace: membership.token,
    });
    await bearerOnly('DELETE', `/api/maaffiliation/${membership.id}`);
    // The SDK signs DELETE /api/maclient/{id}: its Sign (over the path, no parameters, no trailing `&`) is ignored too.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/maclient/${client.id}`,
      headers: {
        authorization: `Bearer ${merchant.publicToken}`,
        sign: referenceSign('js', merchant.privateToken, `/api/maclient/${client.id}`),
      },
    });
    expect(deleted.json()).toEqual({ status: 'suspended', id: client.id });
    for (const url of [
      '/api/banks?currency=clp',
      '/api/paymentmethods',
      '/api/paymentmethods?currency=clp',
    ])
      for (const headers of [{}, { sign: placeholder }, { authorization: 'Bearer not-a-token' }]) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(200);
        expect(res.json().status).toBe('success');
      }
  });
});

describe('§4.5 memberships as the SDK builds them (percentages as text, summing to 100 within 0.01)', () => {
  it('takes a merchant share of 0 and client shares with two decimals, and answers them with two decimals', async () => {
    const clients: string[] = [];
    for (const n of [1, 2, 3])
      clients.push(
        (
          await sdkRequest('POST', '/api/maclient', true, {
            email: `sdk.share${n}@example.com`,
            name: `Share ${n}`,
            phone: '923122312',
            bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
          })
        ).id,
      );
    const membership = await sdkRequest('POST', '/api/maaffiliation', false, {
      name: 'thirds',
      percentage: '0',
      affiliation: [
        [clients[0], '33.33'],
        [clients[1], '33.33'],
        [clients[2], '33.34'],
      ],
    });
    expect(membership).toMatchObject({
      status: 'register',
      percentage: '0.00',
      affiliations: [
        { id: clients[0], percentage: '33.33' },
        { id: clients[1], percentage: '33.33' },
        { id: clients[2], percentage: '33.34' },
      ],
    });
  });
});

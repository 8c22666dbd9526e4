// Decision 700: every answer Cobro sends (success, HTTP 200 `failed`, and each error status) must be described
// by GET /api/openapi.json for its operation and status, and validate against that schema. Before 700 the document
// listed 400/401/403/404 only: the 406, 409, 415, 422, 429, 500 and 503 the conventions send on any operation were
// missing. From review-contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { payByCard } from '../modules/transactions/helpers.ts';
import { Recorder } from './recorder.ts';

let t: TestApp;
let m: TestAccount;
let rec: Recorder;
let limited: TestApp | undefined;

const payout = (order: string, amount: number) => ({
  email: 'proveedor@example.com',
  subject: 'Pago proveedor',
  currency: 'CLP',
  order,
  amount,
  accountbank_name: 'Juan Perez',
  accountbank_rut: '111111111',
  accountbank_sbif: '0001',
  accountbank_type: '1',
  accountbank_num: '12312312312',
});

beforeAll(async () => {
  t = await startTestApp();
  m = await t.createAccount('Contract merchant');
  const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
  rec = new Recorder(t, doc);
  const h = rec.hit.bind(rec);

  // Reference data.
  await h(null, 'GET /api/banks', '/api/banks?currency=clp');
  await h(null, 'GET /api/banks', '/api/banks?currency=zzz');
  await h(null, 'GET /api/paymentmethods', '/api/paymentmethods');
  await h(null, 'GET /api/paymentmethods', '/api/paymentmethods?currency=zzz');
  await h(m, 'GET /api/account', '/api/account', { sign: true });
  await h(null, 'GET /api/account', '/api/account');

  // Transactions.
  await h(m, 'GET /api/transaction', '/api/transaction');
  const created = await h(m, 'POST /api/transaction', '/api/transaction', {
    body: { email: 'payer@example.com', order: 'c-1', subject: 'x', amount: 1000 },
  });
  await h(m, 'POST /api/transaction', '/api/transaction', {
    body: { email: 'payer@example.com', order: 'c-1', subject: 'x', amount: 1000 },
  });
  await h(m, 'POST /api/transaction', '/api/transaction', { body: { email: 'bad' } });
  await h(null, 'POST /api/transaction', '/api/transaction', {
    body: { email: 'payer@example.com', order: 'c-2', subject: 'x', amount: 1000 },
  });
  await h(m, 'GET /api/transaction/{id}', `/api/transaction/${created.json().id}`);
  await h(m, 'GET /api/transaction/{id}', '/api/transaction/trx3b4d77b43acd9a720');
  const { created: paid } = await payByCard(t, m, { order: 'c-paid', amount: 30000 });
  await h(m, 'GET /api/transaction/{id}', `/api/transaction/${paid.id}`);
  await h(m, 'GET /api/transaction', '/api/transaction');
  await h(m, 'POST /api/nullification', '/api/nullification', {
    body: { id: paid.id, amount: 1000, subject: 'devolución' },
    sign: true,
  });
  await h(m, 'POST /api/nullification', '/api/nullification', {
    body: { id: paid.id, amount: 999999, subject: 'devolución' },
    sign: true,
  });
  await h(m, 'POST /api/nullification', '/api/nullification', {
    body: { id: paid.id, amount: 1000, subject: 'devolución' },
  });
  await h(m, 'GET /api/nullification/{id}', `/api/nullification/${paid.id}`, { sign: true });
  await h(m, 'GET /api/nullification/{id}', '/api/nullification/trx3b4d77b43acd9a720', {
    sign: true,
  });
  await h(m, 'POST /api/escrow', '/api/escrow', { body: { transactions: [paid.id] } });

  // Wallet and payouts.
  await h(m, 'GET /api/wallet', '/api/wallet', { sign: true });
  await h(m, 'POST /api/wallet/payout', '/api/wallet/payout', {
    body: payout('p-poor', 1000),
    sign: true,
  });
  await h(m, 'POST /api/sandbox/wallet/credit', '/api/sandbox/wallet/credit', {
    body: { amount: 50000 },
  });
  const po = await h(m, 'POST /api/wallet/payout', '/api/wallet/payout', {
    body: payout('p-1', 1000),
    sign: true,
  });
  await h(m, 'POST /api/wallet/payout', '/api/wallet/payout', {
    body: payout('p-2', 1500),
    sign: true,
  });
  await h(m, 'POST /api/wallet/payout', '/api/wallet/payout', {
    body: payout('p-1', 2000),
    sign: true,
  });
  await h(m, 'POST /api/wallet/payout', '/api/wallet/payout', { body: payout('p-3', 1000) });
  await h(m, 'POST /api/wallet/payout', '/api/wallet/payout', {
    body: { ...payout('p-4', 1000), accountbank_type: '9' },
    sign: true,
  });
  await h(m, 'POST /api/wallet/withdraw', '/api/wallet/withdraw', {
    body: { subject: 'retiro', currency: 'CLP', order: 'w-1', amount: 1000 },
    sign: true,
  });
  await h(m, 'GET /api/wallet', '/api/wallet', { sign: true });
  await h(m, 'GET /api/wallet/list', '/api/wallet/list?page=1&per_page=10', { sign: true });
  await h(m, 'GET /api/wallet/list', '/api/wallet/list?page=1&per_page=5000', { sign: true });
  await h(m, 'GET /api/wallet/{id}', `/api/wallet/${po.json().identifier_wallet}`, { sign: true });
  await h(m, 'GET /api/wallet/{id}', '/api/wallet/wa8a6171ab83323c37', { sign: true });
  await h(m, 'GET /api/payout/{id}', `/api/payout/${po.json().identifier_payout}`, { sign: true });
  await h(m, 'GET /api/payoutv3/{id}', `/api/payoutv3/${po.json().identifier_payout}`, {
    sign: true,
  });
  await h(m, 'GET /api/payout/{id}', '/api/payout/mor33e36b01e8a11b9ee', { sign: true });
  await h(m, 'GET /api/payoutv3/{id}', '/api/payoutv3/mor33e36b01e8a11b9ee', { sign: true });

  // Marketplace.
  const client = await h(m, 'POST /api/maclient', '/api/maclient', {
    body: {
      email: 'c@example.com',
      name: 'Cliente',
      phone: '923122312',
      bank: { sbif: '0001', type: '1', num: '123', rut: '111111111' },
    },
  });
  await h(m, 'POST /api/maclient', '/api/maclient', { body: { email: 'x' } });
  const cid = client.json().id;
  await h(m, 'GET /api/maclient/{id}', `/api/maclient/${cid}`);
  await h(m, 'GET /api/maclient/{id}', '/api/maclient/madb93fc00a2cf6f4449');
  await h(m, 'PUT /api/maclient/{id}', `/api/maclient/${cid}`, {
    body: { name: 'Nuevo', bank: { num: '999', rut: '111111111' } },
    sign: true,
  });
  const ms = await h(m, 'POST /api/maaffiliation', '/api/maaffiliation', {
    body: { name: 'grupo', percentage: '20', affiliation: [[cid, '80']] },
  });
  await h(m, 'POST /api/maaffiliation', '/api/maaffiliation', {
    body: { name: 'grupo', percentage: '20', affiliation: [[cid, '10']] },
  });
  await h(m, 'GET /api/maaffiliation/{id}', `/api/maaffiliation/${ms.json().id}`);
  await h(m, 'POST /api/transaction', '/api/transaction', {
    body: {
      email: 'payer@example.com',
      order: 'mk-1',
      subject: 'x',
      amount: 1000,
      marketplace: ms.json().token,
    },
  });
  await h(m, 'PUT /api/maclient/{id}', `/api/maclient/${cid}`, { body: { name: 'X' }, sign: true });
  await h(m, 'DELETE /api/maaffiliation/{id}', `/api/maaffiliation/${ms.json().id}`);
  await h(m, 'DELETE /api/maaffiliation/{id}', '/api/maaffiliation/maab4462d6133e05e518');
  await h(m, 'DELETE /api/maclient/{id}', `/api/maclient/${cid}`);
  await h(m, 'DELETE /api/maclient/{id}', '/api/maclient/madb93fc00a2cf6f4449');

  // Events.
  await h(m, 'POST /api/event', '/api/event', {
    body: {
      name: 'Event',
      event: '98374',
      date_event: '2026-12-20',
      date_payment: '2026-12-22',
      date_closing_sales: '2026-12-19 23:59:00',
      url_logo: 'https://www.example.com/logo_event1.png',
      url_event: 'https://www.example.com/event1',
      service_sale: 10,
      affiliation: [
        ['afiliate1@example.com', 50],
        ['afiliate2@example.com', 50],
      ],
    },
  });
  await h(m, 'POST /api/event', '/api/event', {
    body: {
      name: 'Event',
      event: '98374',
      date_event: '2026-12-20',
      date_payment: '2026-12-22',
      date_closing_sales: '2026-12-19 23:59:00',
    },
  });
  await h(m, 'POST /api/event', '/api/event', {
    body: {
      name: 'Event',
      event: 'bad-dates',
      date_event: '2026-12-20',
      date_payment: '2026-12-19',
      date_closing_sales: '2026-12-21 23:59:00',
    },
  });
  await h(m, 'GET /api/event/{id}', '/api/event/98374');
  await h(m, 'GET /api/event/{id}', '/api/event/nope');

  // Subscriptions.
  const sc = await h(m, 'POST /api/suclient', '/api/suclient', {
    body: { email: 'sub@example.com', name: 'Sub', phone: '923122312' },
    sign: true,
  });
  await h(m, 'POST /api/suclient', '/api/suclient', {
    body: { email: 'sub@example.com', name: 'Sub', phone: '923122312' },
    sign: true,
  });
  await h(m, 'POST /api/suclient', '/api/suclient', { body: { email: 'x' }, sign: true });
  await h(m, 'GET /api/suclient/customers', '/api/suclient/customers', { sign: true });
  await h(m, 'GET /api/suclient/{id}', `/api/suclient/${sc.json().id}`, { sign: true });
  await h(m, 'GET /api/suclient/{id}', '/api/suclient/cl0be4c8e623c167bc8b777', { sign: true });
  await h(m, 'PUT /api/suclient/{id}', `/api/suclient/${sc.json().id}`, {
    body: { name: 'Sub 2' },
    sign: true,
  });
  const plan = await h(m, 'POST /api/suplan', '/api/suplan', {
    body: { name: 'plan', amount: 5000, currency: 'CLP', interval: 'month' },
    sign: true,
  });
  await h(m, 'GET /api/suplan/plans', '/api/suplan/plans', { sign: true });
  await h(m, 'GET /api/suplan/{id}', `/api/suplan/${plan.json().id}`, { sign: true });
  await h(m, 'GET /api/suplan/{id}', '/api/suplan/pl9697fb170834ad42dd00', { sign: true });
  const sub = await h(m, 'POST /api/sususcription', '/api/sususcription', {
    body: { plan: plan.json().id, client: sc.json().id },
    sign: true,
  });
  await h(m, 'POST /api/sususcription', '/api/sususcription', {
    body: { plan: 'pl9697fb170834ad42dd00', client: sc.json().id },
    sign: true,
  });
  await h(m, 'GET /api/sususcription', '/api/sususcription', { sign: true });
  await h(m, 'GET /api/sususcriptionv3', '/api/sususcriptionv3', { sign: true });
  await h(m, 'GET /api/sususcription/{id}', `/api/sususcription/${sub.json().id}`, { sign: true });
  await h(m, 'GET /api/sususcription/{id}', '/api/sususcription/su867f07772aa5f5175527', {
    sign: true,
  });
  await h(m, 'POST /api/suinscriptionscards', '/api/suinscriptionscards', {
    body: { suscription: sub.json().id },
    sign: true,
  });
  await h(m, 'POST /api/sutransaction', '/api/sutransaction', {
    body: { suscription: sub.json().id, amount: 1000, order: 'st-1' },
    sign: true,
  });
  await h(m, 'POST /api/suscriptionsdeletecards', '/api/suscriptionsdeletecards', {
    body: { card: 'surec804a8ed60c0a8cb8839' },
    sign: true,
  });
  await h(m, 'DELETE /api/sususcription/{id}', `/api/sususcription/${sub.json().id}`, {
    sign: true,
  });
  await h(m, 'DELETE /api/suclient/{id}', `/api/suclient/${sc.json().id}`, { sign: true });
  await h(m, 'POST /api/suclient', '/api/suclient', {
    body: { email: 'sub@example.com', name: 'Sub', phone: '923122312' },
  });

  // Conciliation, mall, notifications, disputes.
  await h(m, 'POST /api/conciliation', '/api/conciliation', {
    body: { date_init: '2026-03-01', date_end: '2026-03-10' },
  });
  await h(m, 'POST /api/conciliation', '/api/conciliation', {
    body: { date_init: '2026-01-01', date_end: '2026-03-10' },
  });
  await h(
    m,
    'GET /api/conciliation.csv',
    '/api/conciliation.csv?date_init=2026-03-01&date_end=2026-03-10',
  );
  const store = await t.createAccount('Store');
  const mall = await h(m, 'POST /api/mall', '/api/mall', {
    body: {
      email: 'johndoe@example.com',
      payment: 1,
      order: 123,
      urlreturn: 'https://shop.example.com/return',
      merchant: [[store.publicToken, '30000', 'item1', null, '4545']],
    },
    sign: true,
  });
  await h(m, 'GET /api/mall/{id}', `/api/mall/${mall.json().id}`);
  await h(m, 'GET /api/mall/{id}', '/api/mall/malld200058ab44739ddee2adcd2f5');
  await h(m, 'GET /api/notifications', '/api/notifications');
  await h(m, 'GET /api/notifications/{id}', '/api/notifications/ntf0000000000000000');
  await h(m, 'GET /api/disputes', '/api/disputes');
  const dispute = await h(m, 'POST /api/sandbox/disputes', '/api/sandbox/disputes', {
    body: { transaction_id: paid.id, amount: 1000, reason: 'fraud' },
  });
  if (dispute.statusCode === 200) {
    const did = dispute.json().id ?? dispute.json().dispute?.id;
    await h(m, 'GET /api/disputes/{id}', `/api/disputes/${did}`);
    await h(m, 'POST /api/disputes/{id}/evidence', `/api/disputes/${did}/evidence`, {
      body: { text: 'recibo', urls: ['https://shop.example.com/r.pdf'] },
      sign: true,
    });
    await h(m, 'POST /api/disputes/{id}/accept', `/api/disputes/${did}/accept`, { sign: true });
  }
  await h(m, 'GET /api/disputes/{id}', '/api/disputes/dp0000000000000000');
  await h(m, 'POST /api/sandbox/clock/advance', '/api/sandbox/clock/advance', {
    body: { days: 1 },
  });

  // Conventions: 405, 406, 415, 409/422 (idempotency), 401 sign.
  await h(m, 'GET /api/wallet', '/api/wallet', { sign: false });
  await h(m, 'GET /api/wallet', '/api/wallet', { headers: { sign: 'deadbeef' } });
  await h(m, 'GET /api/transaction', '/api/transaction', { headers: { accept: 'text/html' } });
  await h(m, 'POST /api/transaction', '/api/transaction', {
    body: 'email=a',
    headers: { 'content-type': 'text/plain' },
  });
  const key = { 'idempotency-key': 'contract-key-1' };
  await h(m, 'POST /api/transaction', '/api/transaction', {
    body: { email: 'payer@example.com', order: 'idem-1', subject: 'x', amount: 1000 },
    headers: key,
  });
  await h(m, 'POST /api/transaction', '/api/transaction', {
    body: { email: 'payer@example.com', order: 'idem-2', subject: 'x', amount: 2000 },
    headers: key,
  });
  await h(m, 'POST /api/wallet/payout', '/api/wallet/payout', {
    body: payout('idem-p', 1000),
    sign: true,
    headers: { 'idempotency-key': 'contract-key-2' },
  });
  await h(m, 'POST /api/wallet/payout', '/api/wallet/payout', {
    body: payout('idem-p', 2000),
    sign: true,
    headers: { 'idempotency-key': 'contract-key-2' },
  });

  // 429: the same database behind an app with a small per-token limit (RATE_LIMIT_PER_MINUTE).
  limited = await startTestApp({ sharing: t, env: { RATE_LIMIT_PER_MINUTE: '2' } });
  const lrec = new Recorder(limited, doc);
  for (let i = 0; i < 4; i++) {
    await lrec.hit(m, 'GET /api/account', '/api/account', { sign: true });
    await lrec.hit(m, 'POST /api/transaction', '/api/transaction', {
      body: { email: 'payer@example.com', order: `rl-${i}`, subject: 'x', amount: 1000 },
    });
    await lrec.hit(m, 'GET /api/wallet', '/api/wallet', { sign: true });
  }
  rec.seen.push(...lrec.seen);
}, 240_000);
afterAll(async () => {
  await limited?.close();
  await t.close();
});

describe('GET /api/openapi.json against the answers Cobro sends', () => {
  it('sent the statuses this file means to check (not vacuous)', () => {
    const statuses = new Set(rec.seen.map((s) => s.status));
    for (const code of [200, 400, 401, 404, 406, 422, 429]) expect(statuses).toContain(code);
    expect(
      rec.seen.filter((s) => s.status === 200 && (s.body as any)?.status === 'failed').length,
    ).toBeGreaterThan(5);
  });
  it('lists every status the server sends for each operation', () => {
    expect(rec.problems().undocumented).toEqual([]);
  });
  it('describes every body the server sends, as it sends it', () => {
    expect(rec.problems().invalid).toEqual([]);
  });
  it('documents, on every operation that can send them, the conventions every route shares (409/422 idempotency, 429, 503)', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(rec.doc.paths as Record<string, any>)) {
      if (!path.startsWith('/api/') || path === '/api/banks' || path === '/api/paymentmethods')
        continue;
      for (const [method, op] of Object.entries(item as Record<string, any>)) {
        const codes = Object.keys(op.responses ?? {});
        const wanted = ['429', '503', ...(method === 'get' ? [] : ['409', '422'])];
        const absent = wanted.filter((c) => !codes.includes(c));
        if (absent.length > 0) missing.push(`${method.toUpperCase()} ${path}: ${absent.join(',')}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

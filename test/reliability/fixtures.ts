// One of every resource an account can own, made through the API as a merchant would (and paid through the
// hosted checkout with the sandbox's test cards): the cross-account matrix tries each with another account.
import { expect } from 'vitest';
import type { TestAccount, TestApp } from '../support/app.ts';

const approvedVisa = '4051 8856 0044 6623';

export interface AccountFixtures {
  readonly transaction: string;
  /** A paid and partly refunded sale: the nullification's id is the sale's. */
  readonly nullification: string;
  readonly payout: string;
  readonly walletMovement: string;
  readonly maclient: string;
  readonly maaffiliation: string;
  readonly membershipToken: string;
  readonly event: string;
  readonly notification: string;
  readonly suclient: string;
  readonly suplan: string;
  readonly sususcription: string;
  readonly suCard: string;
  readonly mall: string;
  /** A chargeback on the paid sale, opened by the sandbox's acquirer (issue 36). */
  readonly dispute: string;
}

async function ok(
  t: TestApp,
  who: TestAccount,
  method: 'POST' | 'GET' | 'PUT',
  url: string,
  body?: unknown,
) {
  const res = await t.call(who, { method, url, body, sign: true });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200);
  expect(res.json().status, `${method} ${url}: ${res.body}`).not.toBe('failed');
  return res.json();
}

/** Pays a pending transaction (or mall) through its hosted page with a card, as a browser without JavaScript would. */
async function payAtCheckout(
  t: TestApp,
  url: string,
  card: { card_number: string; expiry: string; cvv: string },
) {
  const u = new URL(url);
  const res = await t.app.inject({
    method: 'POST',
    url: u.pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      ...Object.fromEntries(u.searchParams),
      method: '1',
      ...card,
    }).toString(),
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(400);
  return res;
}

/** Registers a card on a subscription's enrolment page (`/gateway/registrosuscripcion`). */
async function enrolCard(
  t: TestApp,
  url: string,
  card: { card_number: string; expiry: string; cvv: string },
) {
  const u = new URL(url);
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/registrosuscripcion',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      token: u.searchParams.get('token')!,
      validacion: u.searchParams.get('validacion')!,
      ...card,
    }).toString(),
  });
  expect(res.body).toContain('Tarjeta registrada');
  return res;
}

export async function buildFixtures(
  t: TestApp,
  who: TestAccount,
  tag: string,
  cvv = '123',
): Promise<AccountFixtures> {
  // Far off: the in-process clock is fixed in 2026, but a date the real calendar reaches would date the fixture.
  const card = { card_number: approvedVisa, expiry: '12/99', cvv };
  const sale = await ok(t, who, 'POST', '/api/transaction', {
    email: 'payer@example.com',
    order: `${tag}-sale`,
    subject: 'Matrix sale',
    amount: 20_000,
    urlnotify: 'http://127.0.0.1:9/notify',
  });
  await payAtCheckout(t, sale.url, card);
  await ok(t, who, 'POST', '/api/nullification', {
    id: sale.id,
    amount: 1_000,
    subject: 'partial refund',
  });
  const dispute = await ok(t, who, 'POST', '/api/sandbox/disputes', {
    transaction_id: sale.id,
    amount: 1_000,
    reason: 'matrix chargeback',
  });
  const pending = await ok(t, who, 'POST', '/api/transaction', {
    email: 'payer@example.com',
    order: `${tag}-pending`,
    subject: 'Matrix',
    amount: 5_000,
  });

  await ok(t, who, 'POST', '/api/sandbox/wallet/credit', {
    amount: 100_000,
    currency: 'CLP',
    reason: 'matrix funds',
  });
  const payout = await ok(t, who, 'POST', '/api/wallet/payout', {
    email: 'johndoe@example.com',
    subject: 'Matrix payout',
    currency: 'CLP',
    order: `${tag}-payout`,
    amount: 1_000,
    accountbank_name: 'Jhon Doe',
    accountbank_rut: '111111111',
    accountbank_sbif: '0001',
    accountbank_type: '1',
    accountbank_num: '12312312312',
  });
  const movements = await ok(t, who, 'GET', '/api/wallet/list');

  const maclient = await ok(t, who, 'POST', '/api/maclient', {
    email: `${tag}@example.com`,
    name: 'Client',
    phone: '923122312',
    bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
  });
  const membership = await ok(t, who, 'POST', '/api/maaffiliation', {
    name: `${tag}-market`,
    percentage: '10',
    affiliation: [[maclient.id, 90]],
  });
  const event = `${tag}-event`;
  await ok(t, who, 'POST', '/api/event', {
    name: 'Event',
    event,
    date_event: '2027-12-20',
    date_payment: '2027-12-22',
    date_closing_sales: '2027-12-19 23:59:00',
    url_event: 'https://www.example.com/event1',
    service_sale: 10,
    affiliation: [
      [`${tag}-a@example.com`, 50],
      [`${tag}-b@example.com`, 50],
    ],
  });
  const notification = await t.ctx.db
    .selectFrom('notifications')
    .select('id')
    .where('account_id', '=', who.id)
    .executeTakeFirstOrThrow();

  const suclient = await ok(t, who, 'POST', '/api/suclient', {
    email: `${tag}-su@example.com`,
    name: 'John Doe',
    rut: '11111111',
    phone: '923122312',
  });
  const suplan = await ok(t, who, 'POST', '/api/suplan', { name: `${tag} plan`, amount: 9_990 });
  const sub = await ok(t, who, 'POST', '/api/sususcription', {
    plan: suplan.id,
    client: suclient.id,
  });
  await enrolCard(t, sub.url, card);
  const su = await ok(t, who, 'GET', `/api/sususcription/${sub.id}`);
  const mall = await ok(t, who, 'POST', '/api/mall', {
    email: 'payer@example.com',
    payment: 1,
    order: `${tag}-mall`,
    urlreturn: 'https://shop.example.com/return',
    merchant: [[who.publicToken, 3_000, 'item', null, `${tag}-mall-1`]],
  });
  return {
    transaction: pending.id,
    nullification: sale.id,
    payout: payout.identifier_payout,
    walletMovement: (movements.wallet_movements as Array<{ id: string }>)[0]!.id,
    maclient: maclient.id,
    maaffiliation: membership.id,
    membershipToken: membership.token,
    event,
    notification: notification.id,
    suclient: suclient.id,
    suplan: suplan.id,
    sususcription: sub.id,
    suCard: (su.active_cards as Array<{ identifier: string }>)[0]!.identifier,
    mall: mall.id,
    dispute: dispute.dispute.id,
  };
}

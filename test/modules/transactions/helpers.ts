// Drives the hosted checkout through app.inject, as a browser without JavaScript would.
import type { LightMyRequestResponse } from 'fastify';
import type { TestAccount, TestApp } from '../../support/app.ts';
import { transactionLimits } from '../../../src/limits/index.ts';

export const approvedVisa = { card_number: '4051 8856 0044 6623', expiry: '12/30', cvv: '123' };
export const rejectedMastercard = {
  card_number: '5186 0595 5959 0568',
  expiry: '12/30',
  cvv: '123',
};

export async function createTransaction(
  t: TestApp,
  account: TestAccount,
  body: Record<string, unknown> = {},
) {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/transaction/',
    body: {
      email: 'payer@example.com',
      order: 'o-1',
      subject: 'Compra de prueba',
      amount: 25000,
      ...body,
    },
  });
  if (res.statusCode !== 200) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json() as { status: string; id: string; url: string };
}

/** The checkout url's path and query (the service's base is not reachable from inject). */
export function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

export function linkParams(url: string): { id: string; valid: string } {
  const q = new URL(url).searchParams;
  return { id: q.get('id') ?? '', valid: q.get('valid') ?? '' };
}

export async function submit(
  t: TestApp,
  url: string,
  method: number,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      ...linkParams(url),
      method: String(method),
      ...fields,
    }).toString(),
  });
}

export async function payByCard(
  t: TestApp,
  account: TestAccount,
  body: Record<string, unknown> = {},
  card = approvedVisa,
) {
  const created = await createTransaction(t, account, body);
  const res = await submit(t, created.url, 1, card);
  return { created, res };
}

/** Submits the same declined details until the attempts limit rejects the transaction; answers the last page. */
export async function submitUntilRejected(
  t: TestApp,
  url: string,
  method: number,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  let res: LightMyRequestResponse | undefined;
  for (let i = 0; i < transactionLimits.paymentAttemptsMax; i++)
    res = await submit(t, url, method, fields);
  return res!;
}

export async function declineByCard(
  t: TestApp,
  account: TestAccount,
  body: Record<string, unknown> = {},
  card = rejectedMastercard,
) {
  const created = await createTransaction(t, account, body);
  const res = await submitUntilRejected(t, created.url, 1, card);
  return { created, res };
}

/** The status of the sale `id` as Cobro holds it. */
export async function saleStatusOf(t: TestApp, id: string) {
  const row = await t.ctx.db
    .selectFrom('transactions')
    .select('status')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.status;
}

/** How many capture journals the sale `id` has. */
export async function capturesOf(t: TestApp, id: string) {
  const j = await t.ctx.db
    .selectFrom('journal_entries')
    .select('kind')
    .where('reference', '=', id)
    .execute();
  return j.filter((x) => x.kind === 'transaction.capture').length;
}

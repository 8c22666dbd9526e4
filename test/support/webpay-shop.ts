// A production account paid through Webpay Plus, set up as an operator does (`cobro accounts set-processor`).
import { expect } from 'vitest';
import { sql } from 'kysely';
import { dispatch } from '../../src/cli/dispatch.ts';
import type { TestAccount, TestApp } from './app.ts';
import { createTransaction, linkParams, pathOf } from '../modules/transactions/helpers.ts';

/** Webpay Plus keys: the simulator's, or Transbank's integration ones. */
export interface WebpayKeys {
  readonly commerceCode: string;
  readonly apiKey: string;
}

/** `cobro accounts set-processor` with Webpay Plus keys and `extra` arguments; the command's result. */
export function setWebpayProcessor(
  t: TestApp,
  accountId: string,
  keys: WebpayKeys,
  ...extra: string[]
) {
  return dispatch(
    [
      'accounts',
      'set-processor',
      accountId,
      '--webpay-commerce-code',
      keys.commerceCode,
      '--webpay-api-key',
      keys.apiKey,
      ...extra,
    ],
    t.ctx,
  );
}

/** A new account whose payers pay at the Webpay simulator `sim` (its `url` as the environment). */
export async function webpayShop(
  t: TestApp,
  sim: WebpayKeys & { readonly url: string },
  name: string,
): Promise<TestAccount> {
  const shop = await t.createAccount(name);
  const set = await setWebpayProcessor(t, shop.id, sim, '--environment', sim.url);
  expect(set.exitCode, set.stderr).toBe(0);
  return shop;
}

/** The Visa the Webpay simulator approves. */
const webpayVisa = '4051885600446623';

/**
 * The payer at the Webpay simulator at `simUrl` with the transaction `token`: opens its form, then pays with `card`
 * (no instalments). The simulator's answer: its redirect back to Cobro, unfollowed.
 */
export async function payerAtWebpay(
  simUrl: string,
  token: string,
  card: string = webpayVisa,
): Promise<Response> {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  await fetch(`${simUrl}/webpayserver/initTransaction`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ token_ws: token }),
  });
  return fetch(`${simUrl}/webpayserver/pay`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ token, card, installments: '0' }),
    redirect: 'manual',
  });
}

/**
 * A sale of `amount` paid by card through Webpay Plus at the simulator at `simUrl`: created, its link posted, paid at
 * the simulator and its return page read (checked to say so). The sale's id and its Webpay token.
 */
export async function paidAtWebpay(
  t: TestApp,
  shop: TestAccount,
  simUrl: string,
  amount: number,
): Promise<{ readonly id: string; readonly token: string }> {
  const created = await createTransaction(t, shop, { payment: 1, amount });
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...linkParams(created.url), method: '1' }).toString(),
  });
  const token = /name="token_ws" value="([0-9a-f]+)"/.exec(res.body)![1]!;
  const back = await payerAtWebpay(simUrl, token);
  const page = await t.app.inject({ method: 'GET', url: pathOf(back.headers.get('location')!) });
  expect(page.body).toContain('Pago exitoso');
  return { id: created.id, token };
}

/** A sale's status as Cobro holds it, its capture journals and the merchant callbacks that name its payment key. */
export async function webpaySaleFacts(t: TestApp, id: string) {
  const row = await t.ctx.db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const journals = await t.ctx.db
    .selectFrom('journal_entries')
    .select('kind')
    .where('reference', '=', id)
    .execute();
  const callbacks = await t.ctx.db
    .selectFrom('notifications')
    .select('payload')
    .where(sql<boolean>`payload->>'payment_key' = ${row.payment_key}`)
    .execute();
  return {
    status: row.status,
    captures: journals.filter((j) => j.kind === 'transaction.capture').length,
    callbacks: callbacks.length,
  };
}

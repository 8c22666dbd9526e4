// A production account paid through the Fintoc simulator, set up as an operator does (`cobro accounts
// set-processor`): bank-transfer payments, and with `payouts` also a JWS key and a Fintoc account, so its CLP payouts
// leave as Fintoc transfers, its wallet funded with `fundMinor` by `cobro wallet credit`.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { dispatch } from '../../src/cli/dispatch.ts';
import { startTestApp, type TestAccount, type TestApp, type TestAppOptions } from './app.ts';
import { createTransaction, linkParams } from '../modules/transactions/helpers.ts';
import { startFintocSimulator, type FintocSimulator } from './fintoc-simulator.ts';

interface FintocShopOptions {
  readonly payouts?: { readonly fundMinor: number };
  /** The account's refund callback URL (`nullification_url`). */
  readonly refundCallbackUrl?: string;
}

export async function fintocShop(
  t: TestApp,
  sim: FintocSimulator,
  name: string,
  options: FintocShopOptions = {},
): Promise<{ readonly shop: TestAccount; readonly setOutput: string }> {
  const shop = await t.createAccount(name);
  if (options.refundCallbackUrl !== undefined)
    await t.ctx.db
      .updateTable('accounts')
      .set({ nullification_url: options.refundCallbackUrl })
      .where('id', '=', shop.id)
      .execute();
  const payoutArgs: string[] = [];
  if (options.payouts !== undefined) {
    const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fintoc-')), 'jws.pem');
    fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    payoutArgs.push('--fintoc-jws-key-file', keyFile, '--fintoc-account', 'acc_sim1');
  }
  const set = await dispatch(
    [
      'accounts',
      'set-processor',
      shop.id,
      '--fintoc-secret-key',
      sim.secretKey,
      '--fintoc-webhook-secret',
      sim.webhookSecret,
      ...payoutArgs,
      '--environment',
      sim.url,
    ],
    t.ctx,
  );
  expect(set.exitCode, set.stderr).toBe(0);
  if (options.payouts !== undefined) {
    const credit = await dispatch(
      [
        'wallet',
        'credit',
        '--account',
        shop.id,
        '--amount',
        String(options.payouts.fundMinor),
        '--reason',
        'funding',
        '--key',
        'funding',
      ],
      t.ctx,
    );
    expect(credit.exitCode, credit.stderr).toBe(0);
  }
  return { shop, setOutput: set.stdout };
}

/**
 * A started Fintoc simulator, a production app (secret key `secretByte` repeated, its service logger `logger` when
 * a test reads what it logs) and a new account `name` paid through the simulator, as `fintocShop` sets it up with
 * `options` (and what `cobro accounts set-processor` printed). The caller closes `t` and `sim`.
 */
export async function startFintocShop(
  name: string,
  secretByte: string,
  options: FintocShopOptions = {},
  logger?: TestAppOptions['logger'],
) {
  const sim = await startFintocSimulator();
  let t: TestApp | undefined;
  try {
    t = await startTestApp({
      env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: secretByte.repeat(32) },
      ...(logger === undefined ? {} : { logger }),
    });
    return { sim, t, ...(await fintocShop(t, sim, name, options)) };
  } catch (err) {
    await t?.close();
    await sim.close();
    throw err;
  }
}

/** A Fintoc webhook of `type` signed by the simulator (at `atSeconds`) and posted to the endpoint of `accountId`. */
export function postFintocWebhook(
  t: TestApp,
  sim: FintocSimulator,
  accountId: string,
  type: string,
  data: Record<string, unknown>,
  atSeconds?: number,
) {
  const ev = sim.signedEvent(type, data, atSeconds);
  return t.app.inject({
    method: 'POST',
    url: `/webhooks/fintoc/${accountId}`,
    headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
    payload: ev.body,
  });
}

/** A signed Fintoc webhook of `type` posted to the shop's endpoint, answered 200; the answer's `result`. */
export async function fintocWebhook(
  t: TestApp,
  sim: FintocSimulator,
  shop: TestAccount,
  type: string,
  data: Record<string, unknown>,
): Promise<string> {
  const res = await postFintocWebhook(t, sim, shop.id, type, data);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as string;
}

/** A bank-transfer sale of the shop, paid at the simulator and approved by Fintoc's webhook; the sale's id. */
export async function paidFintocSale(
  t: TestApp,
  sim: FintocSimulator,
  shop: TestAccount,
  order: string,
  amount: number,
): Promise<string> {
  return (await paidFintocPayment(t, sim, shop, order, amount)).id;
}

/** As `paidFintocSale`, with the Fintoc payment intent that paid it (what Fintoc's refund events name). */
export async function paidFintocPayment(
  t: TestApp,
  sim: FintocSimulator,
  shop: TestAccount,
  order: string,
  amount: number,
): Promise<{ readonly id: string; readonly intent: string }> {
  const { sale, session } = await openFintocSession(t, shop, order, amount);
  const back = await fetch(`${sim.url}/pay/${session}/paid`, { redirect: 'manual' });
  expect(back.status).toBe(303);
  const finished = { ...sim.sessions.get(session) };
  expect(await fintocWebhook(t, sim, shop, 'checkout_session.finished', finished)).toBe('approved');
  const resource = finished.payment_resource as { payment_intent: { id: string } };
  return { id: sale.id, intent: resource.payment_intent.id };
}

/**
 * The shop's payout `payoutId`, sent as a Fintoc transfer, made `succeeded` by Fintoc's webhook (applied): the
 * transfer as the simulator holds it.
 */
export async function fintocPayoutSucceeded(
  t: TestApp,
  sim: FintocSimulator,
  shop: TestAccount,
  payoutId: string,
) {
  const sent = [...sim.transfers.values()].find(
    (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === payoutId,
  )!;
  expect(
    await fintocWebhook(t, sim, shop, 'transfer.outbound.succeeded', {
      ...sent,
      status: 'succeeded',
    }),
  ).toBe('applied');
  return sent;
}

/** A bank-transfer sale of the shop sent to Fintoc's page (the payer chose Fintoc): the sale and its session id. */
export async function openFintocSession(
  t: TestApp,
  shop: TestAccount,
  order: string,
  amount: number,
) {
  const sale = await createTransaction(t, shop, {
    additional_parameters: { payer_rut: '11.111.111-1' },
    order,
    amount,
    payment: 19,
  });
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...linkParams(sale.url), method: '19' }).toString(),
  });
  const link = /<a class="button" href="([^"]+)" data-testid="continue-fintoc">/.exec(res.body);
  expect(link, res.body).not.toBeNull();
  return { sale, session: link![1]!.split('/').pop()! };
}

/** The sale's refund row (a sale refunded once). */
export async function refundRowOf(t: TestApp, saleId: string) {
  return t.ctx.db
    .selectFrom('nullifications')
    .selectAll()
    .where('transaction_id', '=', saleId)
    .executeTakeFirstOrThrow();
}

// A production account paid through Webpay Plus, set up as an operator does (`cobro accounts set-processor`).
import { expect } from 'vitest';
import { dispatch } from '../../src/cli/dispatch.ts';
import type { TestAccount, TestApp } from './app.ts';

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

// Shared steps of the wallet tests: funding through the sandbox endpoint and the reference's payout body.
import { expect } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';

export async function fund(
  t: TestApp,
  account: TestAccount,
  amount: number,
  currency = 'CLP',
): Promise<void> {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/sandbox/wallet/credit',
    body: { amount, currency, reason: 'test funds' },
  });
  expect(res.statusCode).toBe(200);
  expect(res.json().status).toBe('success');
}

/** The CL cURL sample body of reference §9.1 / §12.3, with overrides. */
export function payoutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    email: 'johndoe@example.com',
    phone: '123456789',
    subject: 'PayOut 133222',
    currency: 'CLP',
    order: '133222',
    amount: 1000,
    accountbank_name: 'Jhon Doe',
    accountbank_rut: '111111111',
    accountbank_sbif: '0001',
    accountbank_type: '1',
    accountbank_num: '12312312312',
    url_notify: 'https://www.youwebsite.com/urlnotify?orderClient=98745',
    ...overrides,
  };
}

export async function payout(
  t: TestApp,
  account: TestAccount,
  overrides: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return t.call(account, {
    method: 'POST',
    url: '/api/wallet/payout',
    body: payoutBody(overrides),
    sign: true,
    headers,
  });
}

export async function balance(t: TestApp, account: TestAccount, currency = 'CLP'): Promise<number> {
  const res = await t.call(account, {
    method: 'GET',
    url: `/api/wallet?currency=${currency}`,
    sign: true,
  });
  expect(res.statusCode).toBe(200);
  return res.json().amount_available as number;
}

export async function notificationsOf(t: TestApp, accountId: string) {
  return t.ctx.db
    .selectFrom('notifications')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();
}

/**
 * Checks that each of the account's wallet movements carries the balance before it plus its amount, never below
 * zero (a stale locked balance breaks the chain), and returns the last balance.
 */
export async function expectMovementChain(t: TestApp, accountId: string): Promise<number> {
  const movements = await t.ctx.db
    .selectFrom('wallet_movements')
    .select(['income_expense', 'amount_minor', 'balance_after_minor'])
    .where('account_id', '=', accountId)
    .orderBy('seq')
    .execute();
  let runningMinor = 0;
  for (const m of movements) {
    runningMinor += (m.income_expense === 'income' ? 1 : -1) * Number(m.amount_minor);
    expect(Number(m.balance_after_minor)).toBe(runningMinor);
    expect(runningMinor).toBeGreaterThanOrEqual(0);
  }
  return runningMinor;
}

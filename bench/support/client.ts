// Requests as a merchant's integration sends them: Bearer token, and the compatible Sign header where needed.
import { computeSign, queryParams } from '../../src/platform/auth/sign.ts';
import type { BenchAccount } from './setup.ts';

export async function postJson(
  base: string,
  account: BenchAccount,
  urlPath: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${urlPath}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${account.publicToken}`,
      sign: computeSign(account.privateToken, urlPath, body),
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export async function getJson(
  base: string,
  account: BenchAccount | null,
  urlPath: string,
  signed = false,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (account !== null) headers.authorization = `Bearer ${account.publicToken}`;
  if (account !== null && signed) {
    const [pathOnly, query] = urlPath.split('?') as [string, string | undefined];
    headers.sign = computeSign(account.privateToken, pathOnly, queryParams(query ?? ''));
  }
  const res = await fetch(`${base}${urlPath}`, { headers });
  return { status: res.status, body: await res.json() };
}

export function transactionBody(
  i: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    email: 'payer@example.com',
    order: `bench-${i}`,
    subject: 'Bench sale',
    amount: 25000,
    ...extra,
  };
}

/** Not one of the sandbox's fixed amounts, so every payout stays pending and only the reserve path runs. */
export const payoutMinor = 1234;

export function payoutBody(i: number): Record<string, unknown> {
  return {
    email: 'bench@example.com',
    subject: `bench ${i}`,
    currency: 'CLP',
    order: `payout-${i}`,
    amount: payoutMinor,
    accountbank_name: 'Bench',
    accountbank_rut: '111111111',
    accountbank_sbif: '0001',
    accountbank_type: '1',
    accountbank_num: '123123123',
  };
}

// The expiry is far off: the server checks it against the real month, and 12/30 would be refused from 2031 on.
const approvedVisa = { card_number: '4051 8856 0044 6623', expiry: '12/99', cvv: '123' } as const;

/** Pays a created transaction's checkout by card, as a browser without JavaScript posts the form. */
export async function payByCard(base: string, checkoutUrl: string): Promise<boolean> {
  const q = new URL(checkoutUrl).searchParams;
  const form = new URLSearchParams({
    id: q.get('id') ?? '',
    valid: q.get('valid') ?? '',
    method: '1',
    ...approvedVisa,
  });
  const res = await fetch(`${base}/gateway/cobro`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  await res.arrayBuffer();
  return res.status < 400;
}

// Shared steps of the refund tests: a paid card sale, its settlement, a signed nullification and the balances.
import { expect } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { SYSTEM_OWNER } from '../../../src/platform/ledger/codes.ts';
import { accountsSetFee } from '../../../src/cli/commands/accounts-fee.ts';
import { payByCard } from '../transactions/helpers.ts';
import { computeSign } from '../../../src/platform/auth/sign.ts';

export async function paidSale(
  t: TestApp,
  account: TestAccount,
  amount: number,
  order = `o-${amount}`,
): Promise<string> {
  const { created, res } = await payByCard(t, account, { amount, order });
  expect(res.statusCode).toBeLessThan(400);
  const got = await t.call(account, { method: 'GET', url: `/api/transaction/${created.id}` });
  expect(got.json().status).toBe('success');
  return created.id;
}

export async function settle(t: TestApp, account: TestAccount): Promise<void> {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/sandbox/clock/advance',
    body: { seconds: 1 },
  });
  expect(res.statusCode).toBe(200);
}

export async function setFee(
  t: TestApp,
  account: TestAccount,
  percent: string,
  fixed = '0',
): Promise<void> {
  const out = await accountsSetFee.run(t.ctx, {
    values: { payment: '1', percent, fixed },
    positionals: [account.id],
  });
  expect(out.exitCode).toBe(0);
}

export async function nullify(
  t: TestApp,
  account: TestAccount,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return t.call(account, {
    method: 'POST',
    url: '/api/nullification',
    body: { subject: 'anulación transacción', ...body },
    sign: true,
    headers,
  });
}

export function balanceOf(t: TestApp, owner: string, code: string): Promise<bigint> {
  return readBalance(t.ctx.db, { owner, code, currency: 'CLP' });
}

export const system = SYSTEM_OWNER;

/** Fires `count` signed partial refunds of `amount` at one sale at once over real HTTP; answers each status and body. */
/**
 * `count` refunds of `amount` sent at once over real HTTP; each answer. A 503 (the statement bound cut a
 * transaction that waited too long on a loaded box: it rolled back and changed nothing) is sent again after its
 * `Retry-After`, as a client does, up to `outageRetries` times.
 */
export async function concurrentRefunds(
  t: TestApp,
  account: TestAccount,
  id: string,
  amount: number,
  count: number,
) {
  const outageRetries = 5;
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const body = { id, amount, subject: 'parcial' };
  const send = () =>
    fetch(`${address}/api/nullification`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${account.publicToken}`,
        sign: computeSign(account.privateToken, '/api/nullification', body),
      },
      body: JSON.stringify(body),
    });
  return Promise.all(
    Array.from({ length: count }, async () => {
      let res = await send();
      for (let retry = 0; res.status === 503 && retry < outageRetries; retry += 1) {
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
        res = await send();
      }
      return { http: res.status, ...((await res.json()) as { status: string; type?: string }) };
    }),
  );
}

/** The body of POST /api/event for an event `code` named `name`: on 2026-03-20 (the clock starts 2026-03-10), a
 * service fee of 150 and two beneficiaries of 62.5% and 27.25%. */
export function eventBody(code: string, name: string) {
  return {
    event: code,
    name,
    date_event: '2026-03-20',
    date_closing_sales: '2026-03-19 23:59:00',
    date_payment: '2026-03-22',
    service_sale: 150,
    affiliation: [
      ['banda@example.com', 62.5],
      ['sonido@example.com', '27.25'],
    ],
  };
}

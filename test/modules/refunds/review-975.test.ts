// Review of event tickets and refunds of plain payments (decision 975). Requests that move money go over real HTTP
// (the app listening on a loopback port), races as real concurrent requests, and every case ends with
// `cobro ledger verify`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { httpTo } from '../../support/over-http.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { formatTimestamp } from '../../../src/platform/time/time-format.ts';
import { createTransaction, declineByCard, payByCard } from '../transactions/helpers.ts';
import { balanceOf, eventBody, setFee, system } from './helpers.ts';
import { payoutBody } from '../wallet/wallet-helpers.ts';
import type {
  PaymentProcessor,
  RefundOutcome,
  RefundRequest,
} from '../../../src/platform/processors/processor.ts';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
});

/** One request over real HTTP; signed when `options.sign`. */
const http = httpTo(() => base);

const refund = (
  account: TestAccount,
  id: string,
  amount: unknown,
  headers: Record<string, string> = {},
) =>
  http(
    account,
    'POST',
    '/api/nullification',
    { id, amount, subject: 'anulación' },
    {
      sign: true,
      headers,
    },
  );

async function paid(account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const { created, res } = await payByCard(t, account, body);
  expect(res.statusCode).toBe(200);
  return created.id as string;
}

async function refundsOf(id: string) {
  return t.ctx.db
    .selectFrom('nullifications')
    .selectAll()
    .where('transaction_id', '=', id)
    .orderBy('seq')
    .execute();
}

async function saleRow(id: string) {
  return t.ctx.db
    .selectFrom('transactions')
    .select(['status', 'refunded_minor', 'refunded_pending_minor', 'settled_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

describe('a refund retried with its Idempotency-Key', () => {
  it('with another amount is idempotency_mismatch (422) and refunds nothing more', async () => {
    const a = await t.createAccount();
    const id = await paid(a, { amount: 10_000, order: 'idem-1' });
    const first = await refund(a, id, 1_000, { 'idempotency-key': 'r-975' });
    expect(first.json.status).toBe('success');
    const other = await refund(a, id, 9_000, { 'idempotency-key': 'r-975' });
    expect(other.status, other.text).toBe(422);
    expect(other.json).toMatchObject({ status: 'failed', type: 'Unprocessable Entity' });
    // The amount as text of digits is the same request, and replays.
    const asText = await refund(a, id, '1000', { 'idempotency-key': 'r-975' });
    expect(asText.status, asText.text).toBe(200);
    expect(asText.text).toBe(first.text);
    expect((await refundsOf(id)).map((r) => r.amount_minor)).toEqual([1_000n]);
    expect((await saleRow(id)).refunded_minor).toBe(1_000n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('sent twice at once refunds once', async () => {
    const a = await t.createAccount();
    const id = await paid(a, { amount: 10_000, order: 'idem-2' });
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => refund(a, id, 2_000, { 'idempotency-key': 'r-975-b' })),
    );
    for (const r of answers) expect([200, 409], r.text).toContain(r.status);
    expect((await refundsOf(id)).map((r) => r.amount_minor)).toEqual([2_000n]);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('amounts a refund is sent with', () => {
  it('takes a string of digits; refuses decimals, exponents, hex, signs and booleans with 400, moving nothing', async () => {
    const a = await t.createAccount();
    const id = await paid(a, { amount: 10_000, order: 'amt-1' });
    for (const amount of [
      '100.5',
      100.5,
      '1e3',
      '0x10',
      ' 100',
      '-100',
      '+100',
      true,
      '1.000',
      '',
      null,
    ]) {
      const r = await refund(a, id, amount);
      expect(r.status, `${JSON.stringify(amount)}: ${r.text}`).toBe(400);
      expect(r.json.status).toBe('failed');
    }
    expect(await refundsOf(id)).toHaveLength(0);
    const r = await refund(a, id, '100');
    expect(r.json.status, r.text).toBe('success');
    expect(r.json.nullify.amount).toBe(100);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('refunds of what was never paid', () => {
  it('a pending or rejected transaction is transaction_not_paid, nothing recorded, no money moved', async () => {
    const a = await t.createAccount();
    const pending = await createTransaction(t, a, { amount: 5_000, order: 'np-1' });
    const { created: rejected } = await declineByCard(t, a, { amount: 5_000, order: 'np-2' });
    const expiring = await createTransaction(t, a, {
      amount: 5_000,
      order: 'np-3',
      expired: formatTimestamp(
        new Date(t.clock.now().getTime() + 3_600_000),
        t.ctx.config.timeZone,
      ),
      urlreturn: 'https://shop.example.com/back',
    });
    await http(a, 'POST', '/api/sandbox/clock/advance', { hours: 2 });
    expect((await saleRow(expiring.id)).status).toBe('rejected');
    for (const id of [pending.id, rejected.id, expiring.id]) {
      const r = await refund(a, id, 1_000);
      expect(r.status, r.text).toBe(200);
      expect(r.json).toMatchObject({ status: 'failed', type: 'transaction_not_paid' });
      expect(typeof r.json.message_error).toBe('string');
      expect(await refundsOf(id)).toHaveLength(0);
    }
    expect(await balanceOf(t, system, 'refund_clearing')).toBeGreaterThanOrEqual(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

const cli = (...args: string[]) => dispatch(args, t.ctx);

/** Points the account's refund callbacks at a closed local port (`cobro accounts set-urls`). */
async function withNullificationUrl(a: TestAccount) {
  const set = await cli(
    'accounts',
    'set-urls',
    a.id,
    '--nullification-url',
    'http://127.0.0.1:9/n',
  );
  expect(set.exitCode, set.stderr).toBe(0);
}

/** The refund callbacks written for the account: the refund each names and its state. */
async function refundCallbacksOf(accountId: string) {
  const sent = await t.ctx.db
    .selectFrom('notifications')
    .select('payload')
    .where('account_id', '=', accountId)
    .execute();
  return sent.map((n) => n.payload as { id_nullification: string; status: string });
}

async function newEvent(a: TestAccount, code: string, extra: Record<string, unknown> = {}) {
  const r = await http(a, 'POST', '/api/event', { ...eventBody(code, 'Concierto'), ...extra });
  expect(r.json.status, r.text).toBe('success');
}

describe('concurrent partial refunds of an event sale', () => {
  it('never refund more than the ticket; paymentData and the parts reach zero exactly', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '2.95', '10');
    await newEvent(a, 'ev-975-a');
    const id = await paid(a, { amount: 10_000, order: 'ev-1', event: 'ev-975-a' });
    const answers = await Promise.all(Array.from({ length: 16 }, () => refund(a, id, 1_250)));
    expect(answers.filter((r) => r.json.status === 'success')).toHaveLength(8);
    for (const r of answers.filter((x) => x.json.status !== 'success'))
      expect(['already_refunded', 'refund_exceeds_paid'], r.text).toContain(r.json.type);
    const sale = await saleRow(id);
    expect([sale.status, sale.refunded_minor]).toEqual(['refunded', 10_000n]);
    const data = (await http(a, 'GET', '/api/event/ev-975-a')).json.paymentData;
    expect(data).toMatchObject({
      count: 1,
      amount_general: 0,
      fee: 0,
      amount_affiliate: 0,
      balance: 0,
    });
    const shares = await t.ctx.db
      .selectFrom('event_sale_shares')
      .selectAll()
      .where('transaction_id', '=', id)
      .execute();
    for (const s of shares) expect(s.refunded_minor).toBe(s.amount_minor);
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('refunds racing the settlement run', () => {
  it('partial refunds and clock advances at once: the sale and the wallet end exact', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '1');
    const id = await paid(a, { amount: 10_000, order: 'race-1' });
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => refund(a, id, 1_000)),
      http(a, 'POST', '/api/sandbox/clock/advance', { seconds: 1 }),
      http(a, 'POST', '/api/sandbox/clock/advance', { seconds: 1 }),
    ]);
    for (const r of answers) expect(r.status, r.text).toBe(200);
    await http(a, 'POST', '/api/sandbox/clock/advance', { days: 3 });
    const sale = await saleRow(id);
    expect(sale.settled_at).not.toBeNull();
    expect(sale.refunded_minor).toBe(6_000n);
    // 10,000 less the fee of 100 is the net; refunds take 6,000 less the 60 of fee they give back.
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(9_900n - 5_940n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('the callbacks of concurrent refunds', () => {
  it('each refund calls back each of its states once', async () => {
    const a = await t.createAccount();
    await withNullificationUrl(a);
    const id = await paid(a, { amount: 5_000, order: 'cb-1' });
    const answers = await Promise.all(Array.from({ length: 8 }, () => refund(a, id, 1_000)));
    expect(answers.filter((r) => r.json.status === 'success')).toHaveLength(5);
    const states = (await refundCallbacksOf(a.id)).map((p) => `${p.id_nullification}:${p.status}`);
    const refunds = await refundsOf(id);
    expect(refunds).toHaveLength(5);
    expect(states.sort()).toEqual(
      refunds.flatMap((r) => [`${r.id}:complete`, `${r.id}:reverse_completed`]).sort(),
    );
  });
});

/**
 * A refund of 49 whose processor answer is held until a second refund of 49 was made and approved, then refused:
 * 49 gives back no fee of a 1% fee (0.49 rounds down), 49 more gives back 1 (0.98 rounds up).
 */
async function refundsRefusedOutOfOrder(a: TestAccount, id: string): Promise<void> {
  const ctx = t.ctx as { processor: PaymentProcessor };
  const base = ctx.processor;
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let calls = 0;
  ctx.processor = {
    ...base,
    refund: async (r: RefundRequest): Promise<RefundOutcome> => {
      calls += 1;
      if (calls > 1) return base.refund(r);
      await gate;
      return { approved: false, gatewayMessage: 'refused' };
    },
  };
  try {
    const first = refund(a, id, 49);
    while (calls === 0) await new Promise((r) => setTimeout(r, 5));
    const second = await refund(a, id, 49);
    expect(second.json.nullify.status_nullify, second.text).toBe('reverse_completed');
    open();
    expect((await first).json.nullify.status_nullify).toBe('reverse_deleted');
  } finally {
    ctx.processor = base;
  }
}

describe('the fee given back when an earlier refund is refused after a later one', () => {
  it('never gives back more than the sale paid in fees', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '1');
    await withNullificationUrl(a);
    const id = await paid(a, { amount: 10_000, order: 'fee-1' });
    await refundsRefusedOutOfOrder(a, id);
    const last = await refund(a, id, 10_000 - 49);
    expect(last.json.status, last.text).toBe('success');
    const live = (await refundsOf(id)).filter((r) => r.status !== 'reverse_deleted');
    expect(live.reduce((s, r) => s + r.amount_minor, 0n)).toBe(10_000n);
    // The sale paid 100 in fees: exactly that comes back, never 101.
    expect(live.reduce((s, r) => s + r.fee_back_minor, 0n)).toBe(100n);
    // Each refund called back each of its states once, the refused one its refusal.
    const sent = await refundCallbacksOf(a.id);
    const [n1, n2, n3] = await refundsOf(id);
    expect(sent.map((p) => `${p.id_nullification}:${p.status}`).sort()).toEqual(
      [
        `${n1!.id}:complete`,
        `${n1!.id}:reverse_deleted`,
        `${n2!.id}:complete`,
        `${n2!.id}:reverse_completed`,
        `${n3!.id}:complete`,
        `${n3!.id}:reverse_completed`,
      ].sort(),
    );
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('an event while its payers are in checkout', () => {
  it('a ticket bought before the close and paid after it counts; a new one after it is event_sales_closed', async () => {
    const a = await t.createAccount();
    const now = t.clock.now();
    const day = (offsetDays: number) =>
      new Date(now.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
    await newEvent(a, 'ev-975-c', {
      date_event: day(2),
      date_closing_sales: `${day(1)} 12:00:00`,
      date_payment: day(4),
    });
    const created = await createTransaction(t, a, {
      amount: 5_000,
      order: 'c-1',
      event: 'ev-975-c',
    });
    // An event is never changed: sending it again while its payers are in checkout is duplicate_event.
    const again = await http(a, 'POST', '/api/event', {
      event: 'ev-975-c',
      name: 'Otro',
      date_event: day(9),
      date_closing_sales: day(8),
      date_payment: day(10),
    });
    expect(again.json, again.text).toMatchObject({ status: 'failed', type: 'duplicate_event' });
    await http(a, 'POST', '/api/sandbox/clock/advance', { days: 2 });
    const late = await http(a, 'POST', '/api/transaction', {
      email: 'fan@example.com',
      order: 'c-2',
      subject: 'Entrada',
      amount: 5_000,
      event: 'ev-975-c',
    });
    expect(late.json, late.text).toMatchObject({ status: 'failed', type: 'event_sales_closed' });
    const { submit, approvedVisa } = await import('../transactions/helpers.ts');
    const res = await submit(t, created.url, 1, approvedVisa);
    expect(res.statusCode).toBe(200);
    const data = (await http(a, 'GET', '/api/event/ev-975-c')).json.paymentData;
    expect(data).toMatchObject({ count: 1, amount_general: 5_000 });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('has no capacity: a capacity sent is dropped as any unknown field, and tickets sell past it', async () => {
    const a = await t.createAccount();
    await newEvent(a, 'ev-975-g', { capacity: 1 });
    const sold = await Promise.all(
      [1, 2, 3].map((i) => paid(a, { amount: 1_000, order: `g-${i}`, event: 'ev-975-g' })),
    );
    expect(sold).toHaveLength(3);
    const got = (await http(a, 'GET', '/api/event/ev-975-g')).json;
    expect(got.capacity).toBeUndefined();
    expect(got.paymentData).toMatchObject({ count: 3, amount_general: 3_000 });
  });

  it('first sales in two currencies at once: one fixes the currency, the other is event_currency_mismatch', async () => {
    const a = await t.createAccount();
    await newEvent(a, 'ev-975-d');
    const sell = (currency: string, order: string) =>
      http(a, 'POST', '/api/transaction', {
        email: 'fan@example.com',
        order,
        subject: 'Entrada',
        amount: 5_000,
        currency,
        event: 'ev-975-d',
      });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => sell(i % 2 === 0 ? 'CLP' : 'PEN', `cur-${i}`)),
    );
    const ok = answers.filter((r) => r.json.status === 'pending');
    const refused = answers.filter((r) => r.json.type === 'event_currency_mismatch');
    expect(ok.length + refused.length, answers.map((r) => r.text).join('\n')).toBe(6);
    expect(ok).toHaveLength(3);
  });
});

describe('event refunds racing settlement and the beneficiaries’ payout', () => {
  it('no payable below zero, every part paid or refunded once, the ledger clean', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '2.95', '10');
    const now = t.clock.now();
    const day = (offsetDays: number) =>
      new Date(now.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
    await newEvent(a, 'ev-975-e', {
      date_event: day(1),
      date_closing_sales: `${day(1)} 12:00:00`,
      date_payment: day(3),
    });
    const sales = [];
    for (let i = 0; i < 3; i++)
      sales.push(await paid(a, { amount: 10_000 + i * 777, order: `e-${i}`, event: 'ev-975-e' }));
    await http(a, 'POST', '/api/sandbox/wallet/credit', {
      amount: 50_000,
      currency: 'CLP',
      reason: 'x',
    });
    const answers = await Promise.all([
      ...sales.flatMap((id) => Array.from({ length: 3 }, () => refund(a, id, 2_000))),
      http(a, 'POST', '/api/sandbox/clock/advance', { days: 2 }),
      http(a, 'POST', '/api/sandbox/clock/advance', { days: 2 }),
      ...sales.flatMap((id) => Array.from({ length: 2 }, () => refund(a, id, 1_500))),
    ]);
    for (const r of answers) expect(r.status, r.text).toBe(200);
    await http(a, 'POST', '/api/sandbox/clock/advance', { days: 3 });
    const data = (await http(a, 'GET', '/api/event/ev-975-e')).json;
    expect(data.paymentData.amount_general).toBe(
      data.paymentData.fee + data.paymentData.amount_affiliate + data.paymentData.balance,
    );
    for (const b of data.affiliations as { id: string }[])
      expect(await balanceOf(t, b.id, 'beneficiary_payable')).toBe(0n);
    for (const id of sales) expect((await saleRow(id)).refunded_minor).toBe(9_000n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('an event sale whose earlier refund is refused after a later one', () => {
  it('is refunded whole with its exact fee, still settles, and paymentData reaches zero', async () => {
    const a = await t.createAccount();
    await setFee(t, a, '1');
    await newEvent(a, 'ev-975-f');
    const id = await paid(a, { amount: 10_000, order: 'f-1', event: 'ev-975-f' });
    await refundsRefusedOutOfOrder(a, id);
    const last = await refund(a, id, 10_000 - 49);
    expect(last.json.status, last.text).toBe('success');
    const live = (await refundsOf(id)).filter((r) => r.status !== 'reverse_deleted');
    expect(live.reduce((s, r) => s + r.fee_back_minor, 0n)).toBe(100n);
    const advanced = await http(a, 'POST', '/api/sandbox/clock/advance', { days: 1 });
    expect(advanced.status, advanced.text).toBe(200);
    expect((await saleRow(id)).settled_at).not.toBeNull();
    const data = (await http(a, 'GET', '/api/event/ev-975-f')).json.paymentData;
    expect(data).toMatchObject({ count: 1, amount_general: 0, fee: 0 });
    expect(data.amount_general).toBe(data.fee + data.amount_affiliate + data.balance);
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('a refund waiting for funds collected by two drains at once', () => {
  it('is collected once and calls back each state once', async () => {
    const a = await t.createAccount();
    await withNullificationUrl(a);
    const id = await paid(a, { amount: 10_000, order: 'w-1' });
    await http(a, 'POST', '/api/sandbox/clock/advance', { seconds: 1 });
    const drained = await http(
      a,
      'POST',
      '/api/wallet/payout',
      payoutBody({ amount: 10_000, order: 'w-drain' }),
      {
        sign: true,
      },
    );
    expect(drained.json.status, drained.text).toBe('success');
    const waiting = await refund(a, id, 6_000);
    expect(waiting.json.nullify.status_nullify, waiting.text).toBe('awaiting_funds');
    await paid(a, { amount: 20_000, order: 'w-2' });
    const answers = await Promise.all(
      Array.from({ length: 3 }, () =>
        http(a, 'POST', '/api/sandbox/clock/advance', { seconds: 1 }),
      ),
    );
    for (const r of answers) expect(r.status, r.text).toBe(200);
    const [row] = await refundsOf(id);
    expect([row!.status, row!.from_wallet_minor]).toEqual(['reverse_completed', 6_000n]);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(14_000n);
    const sent = await refundCallbacksOf(a.id);
    expect(sent.map((p) => p.status).sort()).toEqual(
      ['awaiting_funds', 'complete', 'reverse_completed'].sort(),
    );
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

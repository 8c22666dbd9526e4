// POST /api/mall, GET /api/mall/{id} and the mall's hosted checkout through app.inject: one payment for several
// stores, each store's own transaction, fee, callback and settlement; refusals that write nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payMall } from './helpers.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { accountsSetFee } from '../../../src/cli/commands/accounts-fee.ts';
import { runSettlements } from '../../../src/modules/transactions/settlement.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { createClient, createMembership } from '../marketplace/helpers.ts';
import { publicTokenHash } from '../../../src/platform/auth/tokens.ts';

let t: TestApp;
let mallOwner: TestAccount;
let storeA: TestAccount;
let storeB: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  mallOwner = await t.createAccount('Mall Plaza');
  storeA = await t.createAccount('Tienda Alfa');
  storeB = await t.createAccount('Tienda Beta');
  await accountsSetFee.run(t.ctx, {
    values: { payment: '1', percent: '2.95', fixed: '10' },
    positionals: [storeA.id],
  });
  await accountsSetFee.run(t.ctx, {
    values: { payment: '1', percent: '1.00', fixed: '0' },
    positionals: [storeB.id],
  });
});
afterAll(async () => {
  await t.close();
});

let orderSeq = 0;
function mallBody(overrides: Record<string, unknown> = {}) {
  orderSeq++;
  return {
    email: 'pagador@example.com',
    payment: 1,
    order: 1000 + orderSeq,
    urlreturn: 'https://shop.example.com/return',
    urlnotify: 'https://shop.example.com/mall-notify',
    merchant: [
      [storeA.publicToken, '30000', 'item1', null, `a-${orderSeq}`],
      [
        storeB.publicToken,
        25000,
        'item2',
        null,
        `b-${orderSeq}`,
        'https://beta.example.com/notify',
      ],
    ],
    ...overrides,
  };
}

const createMall = (body: unknown, account = mallOwner) =>
  t.call(account, { method: 'POST', url: '/api/mall', body, sign: true });
const getMall = (id: string, account = mallOwner) =>
  t.call(account, { method: 'GET', url: `/api/mall/${id}`, sign: true });
async function counts() {
  const [malls, lines, trx] = await Promise.all(
    ['malls', 'mall_lines', 'transactions'].map(async (table) =>
      Number(
        (
          await t.ctx.db
            .selectFrom(table as 'malls')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ),
  );
  return { malls, lines, trx };
}

describe('POST /api/mall', () => {
  it("creates a pending mall with one pending transaction per store, in the reference's shape", async () => {
    const res = await createMall(mallBody());
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      status: 'success',
      id: expect.stringMatching(/^malld[0-9a-f]{25}$/),
    });
    expect(body.url).toBe(`${t.ctx.config.publicBaseUrl}/gateway/mall/${body.id}`);
    expect(body.individual_orders).toEqual([
      {
        merchant: 'Tienda Alfa',
        amount: 30000,
        subject: 'item1',
        event: null,
        identificador: expect.stringMatching(/^\d{16}$/),
        individual_order: `a-${orderSeq}`,
      },
      {
        merchant: 'Tienda Beta',
        amount: 25000,
        subject: 'item2',
        event: null,
        identificador: expect.stringMatching(/^\d{16}$/),
        individual_order: `b-${orderSeq}`,
      },
    ]);
    const got = (await getMall(body.id)).json();
    expect(got).toMatchObject({ status: 'pending', id: body.id, amount: '55000', payment: null });
    expect(
      got.merchant.map((m: { name: string; amount: number; status: string }) => [
        m.name,
        m.amount,
        m.status,
      ]),
    ).toEqual([
      ['Tienda Alfa', 30000, 'pending'],
      ['Tienda Beta', 25000, 'pending'],
    ]);
    // Each store sees its own transaction, by the identificador.
    const own = (
      await t.call(storeA, {
        method: 'GET',
        url: `/api/transaction/${body.individual_orders[0].identificador}`,
      })
    ).json();
    expect(own).toMatchObject({ status: 'pending', order: `a-${orderSeq}`, amount: '30000' });
    expect(
      (
        await t.call(storeB, {
          method: 'GET',
          url: `/api/transaction/${body.individual_orders[0].identificador}`,
        })
      ).statusCode,
    ).toBe(404);
  });

  it('refuses bad input, unknown stores, totals that do not add up and a reused order, writing nothing', async () => {
    const base = mallBody();
    expect((await createMall(base)).json().status).toBe('success');
    const before = await counts();
    const cases: Array<[Record<string, unknown>, number, Record<string, unknown>]> = [
      [
        { merchant: [['no-such-token', 100, 'x', null, '1']] },
        400,
        { errors: { 'merchant.0.0': 'invalid' } },
      ],
      [
        {
          merchant: [
            [storeA.publicToken, 100, 'x', null, '1'],
            [storeB.publicToken, 'cien', 'y', null, '2'],
          ],
        },
        400,
        { errors: { 'merchant.1.1': 'invalid' } },
      ],
      [
        { merchant: [[storeA.publicToken, 100, 'x', null]] },
        400,
        { errors: { 'merchant.0': 'invalid' } },
      ],
      [
        { merchant: [[storeA.publicToken, 100, 'x', 'no-event', '1']] },
        400,
        { errors: { 'merchant.0.3': 'not found' } },
      ],
      [{ merchant: [] }, 400, { errors: { merchant: 'invalid' } }],
      [{ amount: 55001 }, 400, { errors: { amount: 'does not add up to the merchant amounts' } }],
      [{ payment: 77 }, 400, { errors: { payment: 'invalid' } }],
      [{ urlreturn: 'ftp://x' }, 400, { errors: { urlreturn: 'invalid' } }],
      [{ order: base.order }, 200, { status: 'failed', type: 'mall_order_used' }],
      // A mall no payer could pay (decision 451): a currency the checkout takes nothing in, a method it has no page for.
      [{ currency: 'VES', payment: 99 }, 200, { status: 'failed', type: 'currency_not_payable' }],
      [{ payment: 9 }, 200, { status: 'failed', type: 'payment_method_unavailable' }],
    ];
    for (const [overrides, http, expected] of cases) {
      const res = await createMall({ ...mallBody(), ...overrides });
      expect({ overrides, status: res.statusCode }).toEqual({ overrides, status: http });
      expect(res.json()).toMatchObject(expected);
    }
    expect(await counts()).toEqual(before);
    // A total that adds up is fine.
    expect((await createMall(mallBody({ amount: 55000 }))).json().status).toBe('success');
  });

  it("needs Sign on creation; the query takes Bearer alone and checks a Sign when sent; another account's mall is not found", async () => {
    const created = (await createMall(mallBody())).json();
    expect(
      (await t.call(mallOwner, { method: 'POST', url: '/api/mall', body: mallBody() })).statusCode,
    ).toBe(401);
    // As the reference's cURL example and its SDK call it (supplement §2.2).
    const bearerOnly = await t.call(mallOwner, { method: 'GET', url: `/api/mall/${created.id}` });
    expect(bearerOnly.statusCode).toBe(200);
    expect(bearerOnly.json()).toMatchObject({ id: created.id, status: 'pending' });
    const missing = await t.call(mallOwner, {
      method: 'GET',
      url: '/api/mall/malld0000000000000000000000000',
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({
      status: 'failed',
      type: 'Not Found',
      id: 'is not valid',
    });
    const badSign = await t.call(mallOwner, {
      method: 'GET',
      url: `/api/mall/${created.id}`,
      headers: { sign: 'ab'.repeat(32) },
    });
    expect(badSign.statusCode).toBe(401);
    expect(badSign.json()).toMatchObject({
      status: 'failed',
      type: 'Unauthorized',
      message_error: 'invalid sign',
    });
    expect((await getMall(created.id)).statusCode).toBe(200);
    expect((await getMall(created.id, storeA)).statusCode).toBe(404);
    expect(
      (await t.call(storeA, { method: 'GET', url: `/api/mall/${created.id}` })).statusCode,
    ).toBe(404);
  });

  it('never answers a store token back (create answer, query) and keeps only its hash; the callbacks name the stores (below)', async () => {
    const created = await createMall(mallBody());
    const got = await getMall(created.json().id);
    for (const text of [created.body, got.body]) {
      expect(text).not.toContain(storeA.publicToken);
      expect(text).not.toContain(storeB.publicToken);
    }
    const lines = await t.ctx.db
      .selectFrom('mall_lines')
      .selectAll()
      .where('mall_id', '=', created.json().id)
      .execute();
    expect(Object.values(lines[0]!).map(String)).not.toContain(storeA.publicToken);
    expect(lines.map((l) => l.merchant_hash)).toEqual([
      publicTokenHash(storeA.publicToken),
      publicTokenHash(storeB.publicToken),
    ]);
  });
});

describe('paying a mall at /gateway/mall/{id}', () => {
  it("shows every store and the total, charges once, and records each store's success, fee and callback in one commit", async () => {
    const body = mallBody();
    const created = (await createMall(body)).json();
    const page = await t.app.inject({ method: 'GET', url: `/gateway/mall/${created.id}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('$55.000');
    expect(page.body).toContain('Tienda Alfa');
    expect(page.body).toContain('Tienda Beta');

    const paid = await payMall(t, created.id);
    expect(paid.statusCode).toBe(200);
    expect(paid.body).toContain('Pago exitoso');
    const got = (await getMall(created.id)).json();
    expect(got).toMatchObject({
      status: 'success',
      payment: { media: expect.any(String), last_4_digits: '6623', currency: 'CLP' },
    });
    expect(got.merchant.map((m: { status: string }) => m.status)).toEqual(['success', 'success']);
    // Paying again does not charge again.
    expect((await payMall(t, created.id)).body).toContain('Pago exitoso');

    const lines = await t.ctx.db
      .selectFrom('mall_lines')
      .innerJoin('transactions', 'transactions.id', 'mall_lines.transaction_id')
      .select([
        'transactions.account_id',
        'transactions.status',
        'transactions.fee_minor',
        'transactions.id',
        'transactions.urlnotify',
        'transactions.payment_key',
      ])
      .where('mall_id', '=', created.id)
      .orderBy('position')
      .execute();
    // 2.95 % + 10 of 30 000 = 895; 1 % of 25 000 = 250.
    expect(lines.map((l) => [l.account_id, l.status, l.fee_minor])).toEqual([
      [storeA.id, 'success', 895n],
      [storeB.id, 'success', 250n],
    ]);
    const callbacks = await t.ctx.db
      .selectFrom('notifications')
      .select(['account_id', 'url', 'event_type', 'payload'])
      .where((eb) =>
        eb.or([
          eb('account_id', 'in', [storeA.id, storeB.id]),
          eb('event_type', '=', 'mall.result'),
        ]),
      )
      .orderBy('created_at')
      .execute();
    const ofStore = (id: string) =>
      callbacks.filter((c) => c.account_id === id && c.event_type === 'transaction.result');
    expect(ofStore(storeA.id).map((c) => c.url)).toContain('https://shop.example.com/mall-notify');
    expect(ofStore(storeB.id).map((c) => c.url)).toContain('https://beta.example.com/notify');
    expect(ofStore(storeB.id).at(-1)!.payload as Record<string, unknown>).toMatchObject({
      payment_key: lines[1]!.payment_key,
      status: 'success',
      order: created.individual_orders[1].individual_order,
    });
    const mallCallback = callbacks
      .filter((c) => c.event_type === 'mall.result')
      .map((c) => c.payload as Record<string, unknown>)
      .find((p) => p.id === created.id);
    expect(mallCallback).toMatchObject({
      id: created.id,
      status: 'success',
      amount: '55000',
      order: String(body.order),
      individual_orders: [
        {
          merchant: 'Tienda Alfa',
          amount: '30000',
          status: 'success',
          transaction_id: lines[0]!.id,
        },
        {
          merchant: 'Tienda Beta',
          amount: '25000',
          status: 'success',
          transaction_id: lines[1]!.id,
        },
      ],
    });

    const walletBefore = await Promise.all(
      [storeA, storeB].map((s) =>
        readBalance(t.ctx.db, { owner: s.id, code: 'wallet_available', currency: 'CLP' }),
      ),
    );
    t.clock.advanceMs(1000);
    await runSettlements(t.ctx, { limit: 100 });
    const walletAfter = await Promise.all(
      [storeA, storeB].map((s) =>
        readBalance(t.ctx.db, { owner: s.id, code: 'wallet_available', currency: 'CLP' }),
      ),
    );
    expect([walletAfter[0]! - walletBefore[0]!, walletAfter[1]! - walletBefore[1]!]).toEqual([
      30_000n - 895n,
      25_000n - 250n,
    ]);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it("a declined card rejects the mall and every store's transaction, with the callbacks saying failed", async () => {
    const created = (await createMall(mallBody())).json();
    const res = await payMall(t, created.id, '5186 0595 5959 0568');
    expect(res.body).toContain('Pago rechazado');
    const got = (await getMall(created.id)).json();
    expect(got.status).toBe('rejected');
    expect(got.merchant.map((m: { status: string }) => m.status)).toEqual(['rejected', 'rejected']);
    const mallCallback = (
      await t.ctx.db
        .selectFrom('notifications')
        .select('payload')
        .where('event_type', '=', 'mall.result')
        .execute()
    )
      .map((c) => c.payload as Record<string, unknown>)
      .find((p) => p.id === created.id);
    expect(mallCallback).toMatchObject({ status: 'failed' });
  });

  it('three tabs paying one mall at once: one payment, each store paid once, one callback each', async () => {
    const created = (await createMall(mallBody())).json();
    const pages = await Promise.all([1, 2, 3].map(() => payMall(t, created.id)));
    expect(pages.map((p) => p.statusCode)).toEqual([200, 200, 200]);
    expect(pages.filter((p) => p.body.includes('Pago exitoso')).length).toBeGreaterThanOrEqual(1);
    const lines = await t.ctx.db
      .selectFrom('mall_lines')
      .innerJoin('transactions', 'transactions.id', 'mall_lines.transaction_id')
      .select(['transactions.id', 'transactions.status', 'transactions.payment_key'])
      .where('mall_id', '=', created.id)
      .execute();
    expect(lines.map((l) => l.status)).toEqual(['success', 'success']);
    for (const line of lines) {
      const captures = await t.ctx.db
        .selectFrom('journal_entries')
        .select('kind')
        .where('reference', '=', line.id)
        .where('kind', '=', 'transaction.capture')
        .execute();
      expect(captures).toHaveLength(1);
    }
    const callbacks = await t.ctx.db
      .selectFrom('notifications')
      .select(['event_type', 'payload'])
      .where((eb) =>
        eb.or([eb('event_type', '=', 'transaction.result'), eb('event_type', '=', 'mall.result')]),
      )
      .execute();
    const keys = new Set(lines.map((l) => l.payment_key));
    const payloads = callbacks.map((c) => c.payload as Record<string, unknown>);
    expect(payloads.filter((p) => keys.has(p.payment_key as string))).toHaveLength(2);
    expect(payloads.filter((p) => p.id === created.id)).toHaveLength(1);
  });

  it('answers an unknown mall with the invalid-link page', async () => {
    expect(
      (await t.app.inject({ method: 'GET', url: '/gateway/mall/malld0000000000000000000000000' }))
        .statusCode,
    ).toBe(404);
  });
});

describe('a mall line that names an event', () => {
  it("counts the paid line in that store's event paymentData, and only that line", async () => {
    const event = {
      event: 'mall-fest',
      name: 'Fiesta del mall',
      date_event: '2026-03-20',
      date_closing_sales: '2026-03-19 23:59:00',
      date_payment: '2026-03-22',
      service_sale: 0,
      affiliation: [['banda@example.com', 50]],
    };
    expect(
      (await t.call(storeA, { method: 'POST', url: '/api/event', body: event })).json().status,
    ).toBe('success');
    const before = (await t.call(storeA, { method: 'GET', url: '/api/event/mall-fest' })).json()
      .paymentData;
    expect(before?.count ?? 0).toBe(0);
    const created = await createMall(
      mallBody({
        merchant: [
          [storeA.publicToken, 30000, 'entrada', 'mall-fest', 'fest-a'],
          [storeB.publicToken, 25000, 'item2', null, 'fest-b'],
        ],
      }),
    );
    expect(created.statusCode, created.body).toBe(200);
    expect((await payMall(t, created.json().id)).body).toContain('Pago exitoso');
    const after = (await t.call(storeA, { method: 'GET', url: '/api/event/mall-fest' })).json()
      .paymentData;
    expect(after).toMatchObject({ count: 1, amount_general: 30000 });
    expect(after.fee).toBeGreaterThan(0);
  });
});

describe('a mall line that names a marketplace membership of the caller', () => {
  it("makes that line the caller's own transaction split by the membership, paid with the others", async () => {
    const membership = await createMembership(t, mallOwner, '50', [
      [await createClient(t, mallOwner), '50'],
    ]);
    const created = await createMall(
      mallBody({
        merchant: [
          [membership.token, 20000, 'puesto', null, 'mem-a'],
          [storeB.publicToken, 25000, 'item2', null, 'mem-b'],
        ],
      }),
    );
    expect(created.statusCode, created.body).toBe(200);
    expect((await payMall(t, created.json().id)).body).toContain('Pago exitoso');
    const lines = await t.ctx.db
      .selectFrom('mall_lines')
      .innerJoin('transactions', 'transactions.id', 'mall_lines.transaction_id')
      .select([
        'transactions.account_id',
        'transactions.status',
        'transactions.extension_ref',
        'transactions.amount_minor',
      ])
      .where('mall_lines.mall_id', '=', created.json().id)
      .orderBy('transactions.amount_minor')
      .execute();
    expect(lines).toEqual([
      {
        account_id: mallOwner.id,
        status: 'success',
        extension_ref: membership.id,
        amount_minor: 20000n,
      },
      { account_id: storeB.id, status: 'success', extension_ref: null, amount_minor: 25000n },
    ]);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);
  });
});

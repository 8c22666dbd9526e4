// Refunds of one sale raced over real requests (decision 1115): keyless, keyed (one key sent several times at once,
// and with another body), `cobro refunds record-external`, the settlement run, a payout draining the wallet and a
// chargeback, all at once, on the suite's engine (PostgreSQL's pool runs them truly together). Whatever order they
// take: the refunds never sum past the sale, one key makes one refund, every refund ends once with one callback per
// state, every peso is where the ledger says and `cobro ledger verify` is clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { runOnContext } from '../../support/cli-in-process.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { balance, fund, payout } from '../wallet/wallet-helpers.ts';
import { payMall } from '../mall/helpers.ts';
import { balanceOf, nullify, paidSale, setFee, settle, system } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const cli = (...args: string[]) => runOnContext(args, t.ctx);

async function merchant(): Promise<TestAccount> {
  const a = await t.createAccount();
  await setFee(t, a, '2.95', '100');
  const set = await cli(
    'accounts',
    'set-urls',
    a.id,
    '--nullification-url',
    'http://127.0.0.1:9/refunds',
  );
  expect(set.code, set.stderr).toBe(0);
  return a;
}

interface Outcome {
  readonly kind: string;
  readonly code: number;
  readonly body: string;
}

/** Each refund of `sale`: its amount, state, and the states its callbacks carry, in the order written. */
async function refundsOf(sale: string) {
  const rows = await t.ctx.db
    .selectFrom('nullifications')
    .select(['id', 'amount_minor', 'status', 'refund_code'])
    .where('transaction_id', '=', sale)
    .execute();
  const callbacks = await t.ctx.db
    .selectFrom('notifications')
    .select(['payload'])
    .where('event_type', '=', 'nullification.result')
    .execute();
  const states = new Map<string, string[]>();
  for (const c of callbacks) {
    const p = (typeof c.payload === 'string' ? JSON.parse(c.payload) : c.payload) as {
      id_nullification: string;
      status: string;
    };
    states.set(p.id_nullification, [...(states.get(p.id_nullification) ?? []), p.status]);
  }
  return rows.map((r) => ({
    ...r,
    amount: BigInt(r.amount_minor),
    callbacks: states.get(r.id) ?? [],
  }));
}

const order = ['awaiting_funds', 'complete', 'reverse_completed'];

/** The checks every race ends with: the sale's ceiling, one end and one callback per state for each refund. */
async function checkSale(sale: string, amountMinor: bigint) {
  const refunds = await refundsOf(sale);
  const standing = refunds.filter((r) => r.status !== 'reverse_deleted');
  const sum = standing.reduce((s, r) => s + r.amount, 0n);
  const row = await t.ctx.db
    .selectFrom('transactions')
    .select(['refunded_minor', 'status', 'amount_minor'])
    .where('id', '=', sale)
    .executeTakeFirstOrThrow();
  const disputed = await t.ctx.db
    .selectFrom('disputes')
    .select(['amount_minor'])
    .where('transaction_id', '=', sale)
    .execute();
  const disputedMinor = disputed.reduce((s, d) => s + BigInt(d.amount_minor), 0n);
  expect(BigInt(row.refunded_minor)).toBe(sum);
  expect(sum + disputedMinor).toBeLessThanOrEqual(amountMinor);
  for (const r of refunds) {
    expect(r.status, r.id).toBe('reverse_completed');
    // One callback per state it passed, each once (written at one account-clock instant, so compared as a set).
    const path = [...r.callbacks].sort((x, y) => order.indexOf(x) - order.indexOf(y));
    expect([
      ['complete', 'reverse_completed'],
      ['awaiting_funds', 'complete', 'reverse_completed'],
    ]).toContainEqual(path);
  }
  return { refunds, sum, status: row.status };
}

describe('refunds of one sale raced with keys, record-external, settlement, a payout and a chargeback', () => {
  it('keeps the ceiling, one refund per key, one end per refund and every peso', async () => {
    const failures: string[] = [];
    for (let round = 0; round < 3; round++) {
      const a = await merchant();
      const clearingBefore = await balanceOf(t, system, 'refund_clearing');
      // Money in the wallet that a payout drains while the refunds want it.
      const old = await paidSale(t, a, 8_000, `old-${round}`);
      await settle(t, a);
      await fund(t, a, 3_000);
      const amount = 10_000;
      const sale = await paidSale(t, a, amount, `race-${round}`);
      // The last round's sale settled before the race: its refunds pay from the wallet the payout drains, and those
      // it leaves short wait for funds (record-external's among them, decision 1080).
      if (round === 2) {
        await settle(t, a);
        const drained = await payout(t, a, {
          amount: (await balance(t, a)) - 6_000,
          order: 'most',
        });
        expect(drained.json().status, drained.body).not.toBe('failed');
      }
      const part = 1_300;
      const calls: Promise<Outcome>[] = [];
      const asOutcome = (kind: string) => (r: { statusCode: number; body: string }) => ({
        kind,
        code: r.statusCode,
        body: r.body,
      });
      for (let i = 0; i < 4; i++)
        calls.push(nullify(t, a, { id: sale, amount: part }).then(asOutcome('keyless')));
      for (let i = 0; i < 4; i++)
        calls.push(
          nullify(t, a, { id: sale, amount: part }, { 'idempotency-key': `same-${round}` }).then(
            asOutcome('same-key'),
          ),
        );
      calls.push(
        nullify(t, a, { id: sale, amount: part + 1 }, { 'idempotency-key': `same-${round}` }).then(
          asOutcome('same-key-other-body'),
        ),
      );
      for (let i = 0; i < 3; i++)
        calls.push(
          nullify(
            t,
            a,
            { id: sale, amount: part },
            { 'idempotency-key': `own-${round}-${i}` },
          ).then(asOutcome('own-key')),
        );
      for (let i = 0; i < 2; i++)
        calls.push(
          cli(
            'refunds',
            'record-external',
            sale,
            '--amount',
            String(part),
            '--reference',
            `portal-${round}`,
          ).then((r) => ({ kind: 'external', code: r.code ?? -1, body: r.stdout + r.stderr })),
        );
      calls.push(
        t
          .call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { seconds: 1 } })
          .then(asOutcome('advance')),
      );
      calls.push(
        payout(t, a, { amount: round === 2 ? 3_000 : 10_000, order: `drain-${round}` }).then(
          asOutcome('payout'),
        ),
      );
      calls.push(
        t
          .call(a, {
            method: 'POST',
            url: '/api/sandbox/disputes',
            body: { transaction_id: sale, amount: part, reason: 'fraudulent' },
          })
          .then(asOutcome('dispute')),
      );
      const results = await Promise.all(calls);
      for (const r of results)
        if (r.code >= 500 || (r.kind === 'external' && r.code === 2))
          failures.push(`${r.kind} ${r.code} ${r.body}`);
      const sameKey = results.filter((r) => r.kind === 'same-key' && r.code === 200);
      // Sent at once, a key's copies are one refund: replayed or told it is in flight (409), never a second refund.
      expect(new Set(sameKey.map((r) => r.body)).size, JSON.stringify(sameKey)).toBeLessThanOrEqual(
        1,
      );
      // Drain: the next settlements and due work collect what waits and dispatch what is complete.
      await fund(t, a, 20_000);
      await settle(t, a);
      await settle(t, a);
      const { refunds } = await checkSale(sale, BigInt(amount));
      const externals = refunds.filter((r) => r.refund_code?.startsWith('external:') === true);
      expect(externals.length).toBeLessThanOrEqual(1);
      const okApi = results.filter(
        (r) =>
          r.kind !== 'external' &&
          r.code === 200 &&
          r.body.startsWith('{"status":"success","nullify"'),
      );
      const madeByApi =
        okApi.filter((r) => r.kind !== 'same-key').length +
        (okApi.some((r) => r.kind === 'same-key') ? 1 : 0);
      expect(refunds.length - externals.length, JSON.stringify(results)).toBe(madeByApi);
      await checkSale(old, 8_000n);
      // A card refund's money waits in refund clearing for the processor's debit: exactly what the refunds gave.
      const given = refunds.reduce((s, r) => s + r.amount, 0n);
      expect(await balanceOf(t, system, 'refund_clearing')).toBe(clearingBefore + given);
      expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    }
    expect(failures).toEqual([]);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('refunds of the lines of one mall raced, two lines one store', () => {
  it('keeps each line within its amount and the shared wallet whole', async () => {
    const owner = await t.createAccount('Mall Plaza');
    const storeA = await merchant();
    const storeB = await merchant();
    const failures: string[] = [];
    for (let round = 0; round < 2; round++) {
      const clearingBefore = await balanceOf(t, system, 'refund_clearing');
      const created = await t.call(owner, {
        method: 'POST',
        url: '/api/mall',
        sign: true,
        body: {
          email: 'pagador@example.com',
          payment: 1,
          order: `mall-${round}`,
          urlreturn: 'https://shop.example.com/return',
          merchant: [
            [storeA.publicToken, 30_000, 'uno', null, `a1-${round}`],
            [storeA.publicToken, 25_000, 'dos', null, `a2-${round}`],
            [storeB.publicToken, 20_000, 'tres', null, `b-${round}`],
          ],
        },
      });
      expect(created.json().status, created.body).toBe('success');
      expect((await payMall(t, created.json().id)).body).toContain('Pago exitoso');
      const lines = await t.ctx.db
        .selectFrom('mall_lines')
        .innerJoin('transactions', 'transactions.id', 'mall_lines.transaction_id')
        .select(['transactions.id', 'transactions.amount_minor'])
        .where('mall_id', '=', created.json().id)
        .orderBy('position')
        .execute();
      const [a1, a2, b] = lines.map((l) => l.id) as [string, string, string];
      // Store A's earlier money, drained by a payout while its two lines are refunded.
      await fund(t, storeA, 5_000);
      const calls: Promise<{ code: number; body: string }>[] = [];
      const wrap = (r: { statusCode: number; body: string }) => ({
        code: r.statusCode,
        body: r.body,
      });
      for (let i = 0; i < 5; i++) {
        calls.push(nullify(t, storeA, { id: a1, amount: 7_000 }).then(wrap));
        calls.push(nullify(t, storeA, { id: a2, amount: 6_000 }).then(wrap));
        calls.push(nullify(t, storeB, { id: b, amount: 5_000 }).then(wrap));
      }
      // Not the owner's sale, nor store B's: not found, nothing moves.
      calls.push(nullify(t, owner, { id: a1, amount: 1_000 }).then(wrap));
      calls.push(nullify(t, storeB, { id: a2, amount: 1_000 }).then(wrap));
      calls.push(payout(t, storeA, { amount: 5_000, order: `mall-drain-${round}` }).then(wrap));
      calls.push(
        t
          .call(storeA, { method: 'POST', url: '/api/sandbox/clock/advance', body: { seconds: 1 } })
          .then(wrap),
      );
      const results = await Promise.all(calls);
      for (const r of results) if (r.code >= 500) failures.push(`${r.code} ${r.body}`);
      expect(results.filter((r) => r.code === 404)).toHaveLength(2);
      await fund(t, storeA, 60_000);
      await settle(t, storeA);
      await settle(t, storeB);
      let given = 0n;
      for (const line of lines) {
        const { sum } = await checkSale(line.id, BigInt(line.amount_minor));
        given += sum;
      }
      // 4 of 7 000 fit in 30 000, 4 of 6 000 in 25 000, 4 of 5 000 in 20 000.
      expect(given).toBe(4n * 7_000n + 4n * 6_000n + 4n * 5_000n);
      expect(await balanceOf(t, system, 'refund_clearing')).toBe(clearingBefore + given);
    }
    expect(failures).toEqual([]);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('refunds with odd bodies sent at once', () => {
  it('never answer a 500 and change nothing', async () => {
    const a = await merchant();
    const sale = await paidSale(t, a, 10_000, 'odd');
    const odd: unknown[] = [
      '100.5',
      '1e3',
      ' 100',
      '0x10',
      '',
      '-1',
      0,
      -1,
      0.5,
      1.5,
      1e300,
      10_001,
      99_999_999_999_999,
      2 ** 53,
      '99999999999999999999',
      true,
      null,
      [100],
      { v: 1 },
      'NaN',
      'Infinity',
    ];
    const results = await Promise.all([
      ...odd.map((amount) => nullify(t, a, { id: sale, amount })),
      // An unknown or over-long id, an empty subject. (A `currency` is not the API's field: dropped, supplement §1.2.)
      nullify(t, a, { id: 'trx0000000000000000000', amount: 100 }),
      nullify(t, a, { id: 'x'.repeat(41), amount: 100 }),
      nullify(t, a, { id: sale, amount: 100, subject: '' }),
    ]);
    for (const [i, r] of results.entries()) {
      expect(r.statusCode, `${JSON.stringify(odd[i])} ${r.body}`).toBeLessThan(500);
      expect(r.json().status, `${JSON.stringify(odd[i])} ${r.body}`).toBe('failed');
    }
    const row = await t.ctx.db
      .selectFrom('transactions')
      .select(['refunded_minor', 'status'])
      .where('id', '=', sale)
      .executeTakeFirstOrThrow();
    expect([BigInt(row.refunded_minor), row.status]).toEqual([0n, 'success']);
    expect(await refundsOf(sale)).toEqual([]);
  });
});

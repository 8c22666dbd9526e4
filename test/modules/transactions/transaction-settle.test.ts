import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { accountsSetFee } from '../../../src/cli/commands/accounts-fee.ts';
import { computeFeeMinor, parsePercentBp } from '../../../src/modules/transactions/fees.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { SYSTEM_OWNER } from '../../../src/platform/ledger/codes.ts';
import { approvedVisa, createTransaction, declineByCard, payByCard, submit } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const balance = (owner: string, code: string) =>
  readBalance(t.ctx.db, { owner, code, currency: 'CLP' });

async function setFee(id: string, payment: string, percent?: string, fixed?: string) {
  return accountsSetFee.run(t.ctx, {
    values: {
      payment,
      ...(percent !== undefined ? { percent } : {}),
      ...(fixed !== undefined ? { fixed } : {}),
    },
    positionals: [id],
  });
}

async function advance(account: TestAccount, body: Record<string, number>) {
  return (
    await t.call(account, { method: 'POST', url: '/api/sandbox/clock/advance', body })
  ).json();
}

describe('fees', () => {
  it('rounds the percentage half up, adds the fixed part and never exceeds the gross', () => {
    expect(computeFeeMinor(25_000n, { percentBp: 295, fixedMinor: 0n })).toBe(738n);
    expect(computeFeeMinor(100n, { percentBp: 50, fixedMinor: 0n })).toBe(1n);
    expect(computeFeeMinor(99n, { percentBp: 50, fixedMinor: 0n })).toBe(0n);
    expect(computeFeeMinor(50n, { percentBp: 0, fixedMinor: 100n })).toBe(50n);
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 99_999_999_999_999n }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.bigInt({ min: 0n, max: 10_000n }),
        (amount, bp, fixed) => {
          const fee = computeFeeMinor(amount, { percentBp: bp, fixedMinor: fixed });
          const exact = amount * BigInt(bp);
          const floor = exact / 10_000n;
          const percentPart = exact % 10_000n >= 5_000n ? floor + 1n : floor;
          return (
            fee >= 0n &&
            fee <= amount &&
            fee === (percentPart + fixed > amount ? amount : percentPart + fixed)
          );
        },
      ),
    );
    expect(parsePercentBp('2.95')).toBe(295);
    expect(parsePercentBp('100')).toBe(10_000);
    for (const bad of ['2.955', '-1', '100.01', 'abc', '1e2'])
      expect(parsePercentBp(bad)).toBeNull();
  });

  it('cobro accounts set-fee validates its input', async () => {
    const a = await t.createAccount();
    expect((await setFee(a.id, '1', '2.999')).exitCode).toBe(2);
    expect((await setFee(a.id, 'x', '1')).exitCode).toBe(2);
    expect((await setFee(a.id, '1', '1', '-5')).exitCode).toBe(2);
    expect((await setFee(a.id, '77', '1')).stderr).toContain('no payment method with code 77');
    expect((await setFee('accnope', '1', '1')).stderr).toContain('no account');
    expect((await setFee(a.id, '1', '2.95', '100')).stdout).toBe(
      `fee for ${a.id} on payment 1: 2.95% + 100\n`,
    );
  });
});

describe('money on success and settlement', () => {
  it('moves gross to pending settlement, the fee to the service, then the net to the wallet as an income movement', async () => {
    const a = await t.createAccount();
    await setFee(a.id, '1', '2.95', '100');
    const { created } = await payByCard(t, a, {
      amount: 25000,
      order: 'ord-77',
      subject: 'Zapatillas',
    });
    expect(await balance(a.id, 'pending_settlement')).toBe(24_162n);
    expect(await balance(a.id, 'wallet_available')).toBe(0n);
    const moved = await advance(a, { seconds: 1 });
    expect(moved.processed['transaction-settlement']).toBe(1);
    expect(await balance(a.id, 'pending_settlement')).toBe(0n);
    expect(await balance(a.id, 'wallet_available')).toBe(24_162n);
    const movements = await t.ctx.db
      .selectFrom('wallet_movements')
      .selectAll()
      .where('account_id', '=', a.id)
      .execute();
    expect(movements).toHaveLength(1);
    expect(movements[0]).toMatchObject({
      income_expense: 'income',
      status: 'current',
      amount_minor: 24_162n,
      balance_after_minor: 24_162n,
      origin_liquidation: created.id,
      kind: 'settlement',
      reference: created.id,
      order: 'ord-77',
      subject: 'Zapatillas',
      currency: 'CLP',
    });
    expect((await advance(a, { days: 2 })).processed['transaction-settlement']).toBe(0);
    expect(await balance(a.id, 'wallet_available')).toBe(24_162n);
  });

  it('uses the fee of the method actually paid and no fee when none is set', async () => {
    const a = await t.createAccount();
    await setFee(a.id, '4', '1.00');
    const bank = await createTransaction(t, a, {
      amount: 10_000,
      payment: 4,
      additional_parameters: { payer_rut: '111111111' },
    });
    await submit(t, bank.url, 4, { rut: '11.111.111-1', password: '123', bank: '0001' });
    await payByCard(t, a, { amount: 5_000 });
    await advance(a, { seconds: 1 });
    expect(await balance(a.id, 'wallet_available')).toBe(9_900n + 5_000n);
  });
});

describe('settlement delay', () => {
  it("settles on the availability date, one day after the payment, on the account's sandbox clock", async () => {
    const delayed = await startTestApp({ env: { SETTLEMENT_DELAY_DAYS: '1' }, sharing: t });
    try {
      const a = await delayed.createAccount();
      const created = (
        await delayed.call(a, {
          method: 'POST',
          url: '/api/transaction',
          body: { email: 'p@e.cl', order: '1', subject: 's', amount: 5000 },
        })
      ).json();
      const res = await delayed.app.inject({
        method: 'POST',
        url: '/gateway/cobro',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          id: created.id,
          valid: new URL(created.url).searchParams.get('valid')!,
          method: '1',
          ...approvedVisa,
        }).toString(),
      });
      expect(res.body).toContain('Pago exitoso');
      const got = (
        await delayed.call(a, { method: 'GET', url: `/api/transaction/${created.id}` })
      ).json();
      expect(got.payment.deposit_date).toBe('2026-03-11');
      const early = (
        await delayed.call(a, {
          method: 'POST',
          url: '/api/sandbox/clock/advance',
          body: { hours: 11 },
        })
      ).json();
      expect(early.processed['transaction-settlement']).toBe(0);
      const due = (
        await delayed.call(a, {
          method: 'POST',
          url: '/api/sandbox/clock/advance',
          body: { hours: 1 },
        })
      ).json();
      expect(due.processed['transaction-settlement']).toBe(1);
      expect(
        await readBalance(delayed.ctx.db, {
          owner: a.id,
          code: 'wallet_available',
          currency: 'CLP',
        }),
      ).toBe(5_000n);
    } finally {
      await delayed.close();
    }
  });
});

describe('many payments', () => {
  it('keeps the ledger exact through hundreds of payments, declines and expiries', async () => {
    const a = await t.createAccount();
    await setFee(a.id, '1', '3.19', '50');
    let expectedNet = 0n;
    let expectedFees = 0n;
    let expectedGross = 0n;
    // Callbacks go to a closed local port: refused at once, where an unresolvable name waits out a DNS timeout.
    const urlnotify = 'http://127.0.0.1:9/n';
    const rounds = 240;
    for (let i = 0; i < rounds; i++) {
      const amount = 1_000 + ((i * 7_919) % 90_000);
      const kind = i % 4;
      if (kind === 3) {
        await createTransaction(t, a, {
          amount,
          expired: '2026-03-10 13:00:00',
          urlreturn: 'https://s.example/r',
          urlnotify,
        });
        continue;
      }
      const { res } =
        kind === 2
          ? await declineByCard(t, a, { amount, urlnotify })
          : await payByCard(t, a, { amount, urlnotify }, approvedVisa);
      expect(res.statusCode).toBe(200);
      if (kind !== 2) {
        const fee = computeFeeMinor(BigInt(amount), { percentBp: 319, fixedMinor: 50n });
        expectedGross += BigInt(amount);
        expectedFees += fee;
        expectedNet += BigInt(amount) - fee;
      }
    }
    const moved = await advance(a, { hours: 2 });
    expect(moved.processed['transaction-expiry']).toBe(rounds / 4);
    expect(moved.processed['transaction-settlement']).toBe(rounds / 2);
    expect(await balance(a.id, 'wallet_available')).toBe(expectedNet);
    expect(await balance(a.id, 'pending_settlement')).toBe(0n);
    const statuses = await t.ctx.db
      .selectFrom('transactions')
      .select(['status'])
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', a.id)
      .groupBy('status')
      .orderBy('status')
      .execute();
    expect(statuses.map((s) => [s.status, Number(s.n)])).toEqual([
      ['rejected', rounds / 2],
      ['success', rounds / 2],
    ]);
    const callbacks = await t.ctx.db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(Number(callbacks.n)).toBe(rounds);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
    expect(-(await balance(SYSTEM_OWNER, 'processor_clearing'))).toBeGreaterThanOrEqual(
      expectedGross,
    );
    expect(await balance(SYSTEM_OWNER, 'service_fees')).toBeGreaterThanOrEqual(expectedFees);
  }, 240_000);
});

// Escrow (issue 11 point 6, docs/escrow.md): an escrow account's settled sale waits in escrow_held, out of the
// wallet, until POST /api/escrow releases it; each id answers on its own; releasing twice (or fifty times at once,
// over real HTTP) moves the money once; a refund of a held sale pays from what is held.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { formatDate } from '../../../src/platform/time/time-format.ts';
import { accountsSetEscrow } from '../../../src/cli/commands/accounts-escrow.ts';
import { dashboardBrowser } from '../../support/dashboard.ts';
import { createClient, createMembership } from '../marketplace/helpers.ts';
import { payByCard } from '../transactions/helpers.ts';
import { balanceOf, nullify, paidSale, setFee, settle } from '../refunds/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function setEscrow(account: TestAccount, off = false) {
  return accountsSetEscrow.run(t.ctx, {
    values: off ? { off: true } : {},
    positionals: [account.id],
  });
}

async function escrowAccount(): Promise<TestAccount> {
  const a = await t.createAccount();
  expect((await setEscrow(a)).exitCode).toBe(0);
  return a;
}

function release(
  account: TestAccount,
  transactions: unknown,
  headers: Record<string, string> = {},
) {
  return t.call(account, { method: 'POST', url: '/api/escrow', body: { transactions }, headers });
}

const today = () => formatDate(t.clock.now(), t.ctx.config.timeZone);

describe('POST /api/escrow', () => {
  it('keeps an escrow sale out of the wallet until released, answers each id, and releases twice once', async () => {
    const a = await escrowAccount();
    await setFee(t, a, '2.95', '100');
    const id = await paidSale(t, a, 20_000);
    const early = await release(a, [id]);
    expect(early.statusCode).toBe(200);
    expect(early.json()).toEqual({
      transactions: [
        {
          status: 'pending',
          transaction_id: id,
          amount: 20_000,
          availability_date: today(),
          deposit_date: 'N/D',
        },
      ],
    });
    await settle(t, a);
    // 2.95% of 20000 = 590, + 100: the net 19310 is held, not available.
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(19_310n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    const wallet = await t.call(a, { method: 'GET', url: '/api/wallet', sign: true });
    expect(wallet.json().amount_available).toBe(0);
    const dashboard = dashboardBrowser(t);
    await dashboard.signIn(a);
    expect((await dashboard.get('/dashboard/wallet')).body).toMatch(
      /En custodia<\/p>\s*<p class="figure">\$19\.310</,
    );

    const other = await t.createAccount();
    const foreign = await paidSale(t, other, 5_000);
    const res = await release(a, [id, 'trxnotthere', foreign]);
    expect(res.statusCode).toBe(200);
    const released = {
      status: 'liquidate',
      transaction_id: id,
      amount: 20_000,
      availability_date: today(),
      deposit_date: today(),
    };
    expect(res.json()).toEqual({
      transactions: [
        released,
        {
          status: 'not found',
          transaction_id: 'trxnotthere',
          amount: 0,
          availability_date: 'N/D',
          deposit_date: 'N/D',
        },
        {
          status: 'not found',
          transaction_id: foreign,
          amount: 0,
          availability_date: 'N/D',
          deposit_date: 'N/D',
        },
      ],
    });
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(19_310n);
    const movements = await t.ctx.db
      .selectFrom('wallet_movements')
      .select(['kind', 'amount_minor', 'origin_liquidation'])
      .where('account_id', '=', a.id)
      .execute();
    expect(movements).toEqual([
      { kind: 'escrow_release', amount_minor: 19_310n, origin_liquidation: id },
    ]);
    const page = (await dashboard.get('/dashboard/wallet')).body;
    expect(page).toContain('Liberación de custodia');
    expect(page).not.toContain('En custodia');

    // Again, and the same id twice in one request: the same answer, no money moves.
    expect((await release(a, [id, id])).json()).toEqual({ transactions: [released, released] });
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(19_310n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('refuses an account that is not escrow, writing nothing', async () => {
    const a = await t.createAccount();
    const id = await paidSale(t, a, 7_000);
    await settle(t, a);
    const res = await release(a, [id]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'failed',
      type: 'not_escrow',
      message_error: 'your account is not escrow',
    });
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(7_000n);
  });

  it('validates the body as the reference does: an array of ids of at most 30 characters', async () => {
    const a = await escrowAccount();
    expect((await release(a, [])).statusCode).toBe(400);
    expect((await release(a, 'trx1')).statusCode).toBe(400);
    expect((await release(a, ['x'.repeat(31)])).statusCode).toBe(400);
    // A Sign header is accepted, not required (reference §2.1 shows none).
    expect(
      (
        await t.call(a, {
          method: 'POST',
          url: '/api/escrow',
          body: { transactions: ['trxnope'] },
          sign: true,
        })
      ).json().transactions[0].status,
    ).toBe('not found');
    expect(
      (
        await t.call(null, {
          method: 'POST',
          url: '/api/escrow',
          body: { transactions: ['trxnope'] },
        })
      ).statusCode,
    ).toBe(401);
  });

  it('answers liquidate for a sale settled to the wallet before the account became escrow', async () => {
    const a = await t.createAccount();
    const id = await paidSale(t, a, 3_000);
    await settle(t, a);
    expect((await setEscrow(a)).exitCode).toBe(0);
    expect((await release(a, [id])).json().transactions[0]).toMatchObject({
      status: 'liquidate',
      deposit_date: today(),
    });
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(3_000n);
  });

  it('refunds a held sale from what is held, then releases only the rest; escrow cannot be turned off while it holds', async () => {
    const a = await escrowAccount();
    const id = await paidSale(t, a, 10_000);
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(10_000n);
    const off = await setEscrow(a, true);
    expect(off.exitCode).not.toBe(0);
    expect(off.stderr).toContain('still holds 1 escrow sale');
    const refunded = await nullify(t, a, { id, amount: 4_000 });
    expect(refunded.json().nullify).toMatchObject({
      type: 'total',
      status_nullify: 'reverse_completed',
    });
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(6_000n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
    expect((await release(a, [id])).json().transactions[0].status).toBe('liquidate');
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(0n);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(6_000n);
    // Released: a further refund comes from the wallet.
    await nullify(t, a, { id, amount: 1_000 });
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(5_000n);
    expect((await setEscrow(a, true)).exitCode).toBe(0);
    const later = await paidSale(t, a, 2_000, 'o-later');
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(7_000n);
    expect((await release(a, [later])).json().type).toBe('not_escrow');
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe("an escrow account's marketplace payment", () => {
  it("holds only the merchant's part; a refund takes the clients' parts from their payables and the merchant's from what is held", async () => {
    const a = await escrowAccount();
    const [c1, c2] = [await createClient(t, a), await createClient(t, a)];
    const { token } = await createMembership(t, a, '20', [
      [c1, '50'],
      [c2, '30'],
    ]);
    const { created } = await payByCard(t, a, {
      amount: 10_000,
      order: 'o-split',
      marketplace: token,
    });
    await settle(t, a);
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(2_000n);
    expect(await balanceOf(t, c1, 'client_payable')).toBe(5_000n);
    expect(await balanceOf(t, c2, 'client_payable')).toBe(3_000n);
    expect(
      (await nullify(t, a, { id: created.id, amount: 5_000 })).json().nullify.status_nullify,
    ).toBe('reverse_completed');
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(1_000n);
    expect(await balanceOf(t, c1, 'client_payable')).toBe(2_500n);
    expect(await balanceOf(t, c2, 'client_payable')).toBe(1_500n);
    expect((await release(a, [created.id])).json().transactions[0].status).toBe('liquidate');
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(1_000n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('concurrent releases over real HTTP', () => {
  it("move a held sale's money once", async () => {
    const a = await escrowAccount();
    const ids = [await paidSale(t, a, 4_000, 'o-c1'), await paidSale(t, a, 6_000, 'o-c2')];
    await settle(t, a);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await fetch(`${address}/api/escrow`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            authorization: `Bearer ${a.publicToken}`,
          },
          // Half ask in one order, half in the other: the rows are locked in id order, so none deadlocks.
          body: JSON.stringify({ transactions: i % 2 === 0 ? ids : [...ids].reverse() }),
        });
        return {
          http: res.status,
          body: (await res.json()) as { transactions: { status: string }[] },
        };
      }),
    );
    expect(answers.filter((x) => x.http !== 200)).toEqual([]);
    expect(answers.flatMap((x) => x.body.transactions.map((item) => item.status))).toEqual(
      Array(40).fill('liquidate'),
    );
    expect(await balanceOf(t, a.id, 'wallet_available')).toBe(10_000n);
    expect(await balanceOf(t, a.id, 'escrow_held')).toBe(0n);
    const releases = await t.ctx.db
      .selectFrom('journal_entries')
      .select('id')
      .where('kind', '=', 'escrow.released')
      .where('reference', 'in', ids)
      .execute();
    expect(releases).toHaveLength(2);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

// Decision 890: a refund of an escrow account's sale taken before the sale settled (from its pending settlement)
// and refused by the processor after a concurrent clock advance settled the sale into its hold. Its money went back
// to a hold that never counted it as settled: escrow_holds' CHECK (held <= settled) failed, the refund's request
// answered 500 and its money stayed in refund clearing. Now the hold counts it as settled too, as when the refusal
// comes before the settlement. Real concurrent requests (a signed refund and a clock advance) over HTTP, repeated
// with a growing delay until the settlement lands between the refund's commit and its refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { accountsSetEscrow } from '../../../src/cli/commands/accounts-escrow.ts';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { balanceOf, paidSale } from '../refunds/helpers.ts';
import { conciliationOfDay } from '../conciliation/helpers.ts';
import { registerNullification } from '../../../src/modules/refunds/nullify.ts';

let t: TestApp;
let address: string;
beforeAll(async () => {
  t = await startTestApp();
  address = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
});

const trialsMax = 40;

function post(account: TestAccount, path: string, body: Record<string, unknown>, sign = false) {
  return fetch(`${address}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${account.publicToken}`,
      ...(sign ? { sign: computeSign(account.privateToken, path, body) } : {}),
    },
    body: JSON.stringify(body),
  });
}

/** A new escrow account's paid sale of 10,000 whose refunds the processor refuses. */
async function saleWhoseRefundIsRefused(): Promise<{ a: TestAccount; id: string }> {
  const a = await t.createAccount();
  const escrow = await accountsSetEscrow.run(t.ctx, { values: {}, positionals: [a.id] });
  expect(escrow.exitCode).toBe(0);
  const id = await paidSale(t, a, 10_000);
  // The sandbox processor refuses a refund of an authorization it never gave.
  await t.ctx.db
    .updateTable('transactions')
    .set({ authorization_code: 'not-one-the-processor-gave' })
    .where('id', '=', id)
    .execute();
  return { a, id };
}

/** The sale's settlement time and the part of it a refund holds pending. */
function saleOf(id: string) {
  return t.ctx.db
    .selectFrom('transactions')
    .select(['settled_at', 'refunded_pending_minor'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** The status recorded for the sale's refund. */
async function refundStatusOf(id: string): Promise<string> {
  const refund = await t.ctx.db
    .selectFrom('nullifications')
    .select('status')
    .where('transaction_id', '=', id)
    .executeTakeFirstOrThrow();
  return refund.status;
}

/** The whole net of the sale is in the hold: none of it in the wallet or in refund clearing. */
async function expectHeld(a: TestAccount): Promise<void> {
  expect(await balanceOf(t, a.id, 'escrow_held')).toBe(10_000n);
  expect(await balanceOf(t, a.id, 'wallet_available')).toBe(0n);
}

/** Releases the sale (POST /api/escrow): the whole net moves from the hold to the wallet, once. */
async function expectReleased(a: TestAccount, id: string): Promise<void> {
  const released = await t.call(a, {
    method: 'POST',
    url: '/api/escrow',
    body: { transactions: [id] },
  });
  expect(released.json().transactions[0].status).toBe('liquidate');
  expect(await balanceOf(t, a.id, 'wallet_available')).toBe(10_000n);
  expect(await balanceOf(t, a.id, 'escrow_held')).toBe(0n);
}

/** The day's conciliation shows the sale's batch: its whole net available, `depositMinor` of it paid out. */
async function expectReported(a: TestAccount, status: string, depositMinor: number): Promise<void> {
  const report = await conciliationOfDay(t, a, '2026-03-10');
  expect(report.statusCode).toBe(200);
  expect(report.json().conciliation[0]).toMatchObject({
    status,
    amount_available: 10_000,
    amount_deposit: depositMinor,
  });
}

/** One trial: answers whether the settlement landed between the refund's commit and its refusal. */
async function trial(n: number): Promise<boolean> {
  const { a, id } = await saleWhoseRefundIsRefused();
  const refund = post(a, '/api/nullification', { id, amount: 4_000, subject: 'parcial' }, true);
  await new Promise((resolve) => setTimeout(resolve, (n % 10) * 3));
  const advance = post(a, '/api/sandbox/clock/advance', { seconds: 1 });
  const [refunded, advanced] = await Promise.all([refund, advance]);
  expect(advanced.status).toBe(200);
  expect(refunded.status).toBe(200);
  // The request's own dispatch, or the advance's drain when it took the dispatch first, records the refusal.
  const { nullify } = (await refunded.json()) as {
    nullify: { id: string; status_nullify: string };
  };
  expect(['complete', 'reverse_deleted']).toContain(nullify.status_nullify);
  expect(await refundStatusOf(id)).toBe('reverse_deleted');
  const sale = await saleOf(id);
  const interleaved = sale.settled_at !== null && BigInt(sale.refunded_pending_minor) > 0n;
  if (sale.settled_at === null) return false;
  // Settled, before or after the refusal: the whole net is held, none of it in the wallet or in refund clearing.
  await expectHeld(a);
  await expectReported(a, 'deteined', 0);
  await expectReleased(a, id);
  await expectReported(a, 'paid_out', 10_000);
  return interleaved;
}

// The losing order made on purpose, on both engines: the refund registered (taken from the pending settlement)
// without its dispatch, then a clock advance whose run settles the sale into its hold and then dispatches the
// refund, which the processor refuses.
describe('a refused refund of an escrow sale settled between its registration and its refusal', () => {
  it('counts the returned money as settled in the hold: the whole net held once, released once', async () => {
    const { a, id } = await saleWhoseRefundIsRefused();
    const registered = await registerNullification(t.ctx, a.id, {
      id,
      amount: 4_000,
      subject: 'parcial',
    });
    expect(registered.ok).toBe(true);
    const advanced = await post(a, '/api/sandbox/clock/advance', { seconds: 1 });
    expect(advanced.status, await advanced.text()).toBe(200);
    const sale = await saleOf(id);
    expect(sale.settled_at).not.toBeNull();
    expect(BigInt(sale.refunded_pending_minor)).toBe(4_000n);
    expect(await refundStatusOf(id)).toBe('reverse_deleted');
    await expectHeld(a);
    await expectReleased(a, id);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

// PGlite runs one connection: a request's transactions never interleave there, so the race needs PostgreSQL. The
// race is timing's: a run may not hit the interleaving (the test above makes it on purpose), but every order it
// does hit must leave the same books.
const onPostgres = process.env.DATABASE_URL !== undefined;

describe.runIf(onPostgres)('a refused refund of an escrow sale racing its settlement', () => {
  it('leaves the whole net held once, the report answering, the ledger clean', async () => {
    let interleavings = 0;
    for (let n = 0; n < trialsMax && interleavings < 2; n++) if (await trial(n)) interleavings++;
    process.stdout.write(`escrow refund race: ${interleavings} interleaving(s) hit\n`);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  }, 120_000);
});

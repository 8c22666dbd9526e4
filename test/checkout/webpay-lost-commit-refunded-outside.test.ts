// Decision 1042: a Webpay Plus sale whose commit answer was lost and whose status then reads PARTIALLY_NULLIFIED
// (charged, then partly given back at Transbank's portal, decision 1010) is recorded paid and, in the same flow, the
// part given back (amount less Transbank's balance) is recorded as a refund made outside Cobro (decision 1025's
// function): the merchant's money, the refund the API lists, its callbacks and the ledger agree with Transbank without
// the operator. The real `transbank-sdk` against the simulator, through the return page and the
// `processor-commit-recovery` due work.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../support/webpay-simulator.ts';
import { payerAtWebpay, webpayShop } from '../support/webpay-shop.ts';
import { createTransaction, linkParams, pathOf } from '../modules/transactions/helpers.ts';
import { balanceOf, setFee } from '../modules/refunds/helpers.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { recoverLostCommits } from '../../src/modules/transactions/redirect-recovery.ts';
import { runSettlements } from '../../src/modules/transactions/settlement.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';
import { verifyAudit } from '../../src/platform/audit/verify.ts';
import { transactionLimits } from '../../src/limits/index.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;
const logged: { level: number; msg: string; transaction?: string }[] = [];
const form = { 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  sim = await startWebpaySimulator();
  const lines = new Writable({
    write(chunk, _encoding, done) {
      logged.push(JSON.parse(String(chunk)));
      done();
    },
  });
  t = await startTestApp({
    env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) },
    logger: pino({ level: 'warn' }, lines),
  });
  shop = await webpayShop(t, sim, 'Tienda Webpay 1042');
  // No fee, so the merchant's money is the sale less what was given back, to the peso.
  await setFee(t, shop, '0');
  const urls = await dispatch(
    ['accounts', 'set-urls', shop.id, '--nullification-url', 'https://tienda.example/refunds'],
    t.ctx,
  );
  expect(urls.exitCode, urls.stderr).toBe(0);
});
afterEach(() => {
  sim.rewrite.status = undefined;
  sim.commitFault = 'none';
  sim.statusFault = 'none';
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/** The payer pays at Webpay and comes back; the commit charges the card and its answer is lost. */
async function payWithCommitLost(amount: number) {
  const created = await createTransaction(t, shop, { payment: 1, amount });
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: form,
    payload: new URLSearchParams({ ...linkParams(created.url), method: '1' }).toString(),
  });
  const token = /name="token_ws" value="([0-9a-f]+)"/.exec(res.body)?.[1];
  expect(token, res.body).toBeDefined();
  sim.commitFault = 'reset';
  const back = await payerAtWebpay(sim.url, token!);
  const page = await t.app.inject({ method: 'GET', url: pathOf(back.headers.get('location')!) });
  sim.commitFault = 'none';
  return { id: created.id, token: token!, page: page.body };
}

/** The merchant refunds `amount` at Transbank's portal: Transbank's record changes, Cobro is told nothing. */
function refundAtPortal(token: string, amount: number) {
  const charge = sim.transactions.get(token)!;
  charge.refunds.push(amount);
  charge.balance -= amount;
  charge.state = 'PARTIALLY_NULLIFIED';
}

async function recheck() {
  t.clock.advanceMs(transactionLimits.acquirer.commitRecheckMs + 1_000);
  return recoverLostCommits(t.ctx, { limit: 10 });
}

const refundsOf = (id: string) =>
  t.ctx.db
    .selectFrom('nullifications')
    .select(['id', 'amount_minor', 'status', 'refund_code', 'dispatch_due_at'])
    .where('transaction_id', '=', id)
    .orderBy('seq')
    .execute();

/** What the merchant reads: the sale, its latest refund, and the money Cobro holds for it. */
async function merchantView(id: string) {
  const sale = await t.call(shop, { method: 'GET', url: `/api/transaction/${id}` });
  const refund = await t.call(shop, { method: 'GET', url: `/api/nullification/${id}`, sign: true });
  return {
    status: sale.json().status,
    refund: refund.statusCode === 200 ? refund.json().nullify : null,
  };
}

const wallet = async () =>
  BigInt(
    (await t.call(shop, { method: 'GET', url: '/api/wallet', sign: true })).json().amount_available,
  );

/** As an interrupted record leaves it (decision 150): the session `committing`, due for the recovery again. */
async function sessionLeftCommitting(id: string) {
  await t.ctx.db
    .updateTable('processor_sessions')
    .set({ state: 'committing' })
    .where('transaction_id', '=', id)
    .execute();
}

/** Everything a second record could move: the sale, its refunds, callbacks, journal, money and audit chain. */
async function everythingOf(id: string) {
  const db = t.ctx.db;
  const sale = await db
    .selectFrom('transactions')
    .select(['status', 'charge_key', 'updated_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const callbacks = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', shop.id)
    .executeTakeFirstOrThrow();
  const entries = await db
    .selectFrom('journal_entries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const chain = await db
    .selectFrom('audit_log')
    .select(['seq', 'actor', 'action', 'target'])
    .where('chain', '=', shop.id)
    .orderBy('seq')
    .execute();
  return {
    sale,
    refunds: await refundsOf(id),
    callbacks: Number(callbacks.n),
    entries: Number(entries.n),
    pending: await balanceOf(t, shop.id, 'pending_settlement'),
    wallet: await wallet(),
    chain,
  };
}

const sessionState = async (id: string) =>
  (
    await t.ctx.db
      .selectFrom('processor_sessions')
      .select('state')
      .where('transaction_id', '=', id)
      .executeTakeFirstOrThrow()
  ).state;

describe('a lost commit whose status reads PARTIALLY_NULLIFIED records the part given back', () => {
  it('read by the recovery: the sale paid, the portal refund recorded once, its callbacks queued, the money right', async () => {
    const walletBefore = await wallet();
    const pendingBefore = await balanceOf(t, shop.id, 'pending_settlement');
    sim.statusFault = 'error';
    const sale = await payWithCommitLost(10_000);
    sim.statusFault = 'none';
    expect(sale.page).toContain('Estamos procesando tu pago');
    // Before the recovery reads the status, the merchant gives 3,000 back at Transbank's portal.
    refundAtPortal(sale.token, 3_000);
    const calls = sim.calls.length;
    expect(await recheck()).toBe(1);
    // Only the status was read: nothing was sent to refund.
    expect(sim.calls.length).toBe(calls + 1);
    expect(sim.transactions.get(sale.token)).toMatchObject({ refunds: [3_000], balance: 7_000 });

    const refunds = await refundsOf(sale.id);
    expect(refunds).toEqual([
      {
        id: expect.stringMatching(/^nul/),
        amount_minor: 3_000n,
        status: 'reverse_completed',
        refund_code: expect.stringMatching(/^external:webpay-status-[0-9a-f]{16}$/),
        dispatch_due_at: null,
      },
    ]);
    expect(await merchantView(sale.id)).toMatchObject({
      status: 'refunded partial',
      refund: { amount: 3_000, status_nullify: 'reverse_completed' },
    });
    const shown = JSON.parse(
      (await dispatch(['refunds', 'show', refunds[0]!.id, '--json'], t.ctx)).stdout,
    );
    expect(shown.callbacks.map((c: { refund_status: string }) => c.refund_status)).toEqual([
      'complete',
      'reverse_completed',
    ]);
    // The merchant holds what Transbank holds: the sale less what was given back, then in the wallet once settled.
    expect((await balanceOf(t, shop.id, 'pending_settlement')) - pendingBefore).toBe(7_000n);
    await runSettlements(t.ctx, { accountId: shop.id, limit: 10 });
    expect((await wallet()) - walletBefore).toBe(7_000n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
    const said = logged.filter((l) => l.transaction === sale.id && l.level >= 50);
    expect(said.map((l) => l.msg)).toEqual([
      'Webpay shows the lost commit charged and partly refunded outside Cobro: the sale is paid and the part given back recorded as a refund made outside Cobro',
    ]);

    // A second recovery of the same commit (its record interrupted before the session closed) records nothing more.
    await sessionLeftCommitting(sale.id);
    expect(await recheck()).toBe(1);
    expect(await refundsOf(sale.id)).toEqual(refunds);
    expect((await wallet()) - walletBefore).toBe(7_000n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it("read on the payer's return: paid and the part given back recorded in the same flow", async () => {
    sim.rewrite.status = (b) => ({ ...b, status: 'PARTIALLY_NULLIFIED', balance: 6_500 });
    const sale = await payWithCommitLost(10_100);
    expect(sale.page).toContain('Pago exitoso');
    expect(await refundsOf(sale.id)).toMatchObject([
      { amount_minor: 3_600n, status: 'reverse_completed' },
    ]);
    expect(await merchantView(sale.id)).toMatchObject({
      status: 'refunded partial',
      refund: { amount: 3_600, status_nullify: 'reverse_completed' },
    });
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('a part that cannot be recorded leaves the sale paid and tells the operator the command', async () => {
    sim.statusFault = 'error';
    const sale = await payWithCommitLost(10_200);
    sim.statusFault = 'none';
    refundAtPortal(sale.token, 1_000);
    expect(await recheck()).toBe(1);
    expect(await refundsOf(sale.id)).toMatchObject([{ amount_minor: 1_000n }]);
    // Another portal refund, then the record is interrupted and run again: the same reference for another amount is
    // refused (decision 1025), so nothing more is recorded and the operator is told how to record the rest.
    refundAtPortal(sale.token, 500);
    await sessionLeftCommitting(sale.id);
    expect(await recheck()).toBe(1);
    expect(await refundsOf(sale.id)).toMatchObject([{ amount_minor: 1_000n }]);
    const said = logged.filter((l) => l.transaction === sale.id && l.level >= 50).at(-1);
    expect(said?.msg).toContain('could not be recorded');
    expect(said?.msg).toContain(`cobro refunds record-external ${sale.id} --amount`);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('a balance Transbank does not state leaves the sale paid in full and names the command', async () => {
    sim.rewrite.status = (b) => ({ ...b, status: 'PARTIALLY_NULLIFIED', balance: null });
    const sale = await payWithCommitLost(10_300);
    expect(sale.page).toContain('Pago exitoso');
    expect(await refundsOf(sale.id)).toEqual([]);
    expect((await merchantView(sale.id)).status).toBe('success');
    const said = logged.filter((l) => l.transaction === sale.id && l.level >= 50);
    expect(said.at(-1)?.msg).toContain(`cobro refunds record-external ${sale.id}`);
  });

  it('a recovery run again after both records knows the sale as its own: no error logged, nothing moved (decision 1043)', async () => {
    sim.statusFault = 'error';
    const sale = await payWithCommitLost(10_400);
    sim.statusFault = 'none';
    refundAtPortal(sale.token, 2_000);
    const chainBefore = (await everythingOf(sale.id)).chain;
    expect(await recheck()).toBe(1);
    expect(await refundsOf(sale.id)).toMatchObject([
      { amount_minor: 2_000n, status: 'reverse_completed' },
    ]);
    const before = await everythingOf(sale.id);
    // Cobro's own recovery, like its due work and the processors' answers, is not on the audit trail, which records
    // the API's, the dashboard's and the operator's changes (decisions 531, 1043): the account's chain is as it was.
    expect(before.chain).toEqual(chainBefore);
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
    expect(before.sale).toMatchObject({ status: 'refunded partial' });

    // The record was interrupted after both commits, before the session closed: the recovery reads the status again.
    await sessionLeftCommitting(sale.id);
    const mark = logged.length;
    expect(await recheck()).toBe(1);
    // The sale paid by this very attempt, now partly refunded, is its own earlier record: no claim was lost, and the
    // refund it finds recorded is no news to the operator.
    expect(logged.slice(mark).filter((l) => l.level >= 50)).toEqual([]);
    expect(await everythingOf(sale.id)).toEqual(before);
    expect(await sessionState(sale.id)).toBe('approved');
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });
});

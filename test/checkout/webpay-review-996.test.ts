// Decision 996: what a real acquirer's answers can do to the money of a Webpay Plus sale in production. The real
// `transbank-sdk` against the simulator (test/support/webpay-simulator.ts), its answers rewritten as a faulty
// Transbank could send them, through the checkout's HTTP routes and `POST /api/nullification`.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../support/webpay-simulator.ts';
import {
  payerAtWebpay,
  setWebpayProcessor,
  webpaySaleFacts,
  webpayShop,
} from '../support/webpay-shop.ts';
import { createTransaction, linkParams, pathOf } from '../modules/transactions/helpers.ts';
import { recoverLostCommits } from '../../src/modules/transactions/redirect-recovery.ts';
import { transactionLimits } from '../../src/limits/index.ts';
import { nullify } from '../modules/refunds/helpers.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  sim = await startWebpaySimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) } });
  shop = await webpayShop(t, sim, 'Tienda Webpay 996');
});
afterEach(() => {
  sim.rewrite.commit = undefined;
  sim.rewrite.status = undefined;
  sim.rewrite.refund = undefined;
  sim.commitFault = 'none';
  sim.statusFault = 'none';
  sim.refundFault = 'none';
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

async function facts(id: string) {
  const sessions = await t.ctx.db
    .selectFrom('processor_sessions')
    .select('state')
    .where('transaction_id', '=', id)
    .execute();
  return { ...(await webpaySaleFacts(t, id)), sessions: sessions.map((s) => s.state) };
}

/** The payer chooses Webpay, pays with the VISA at the simulator and comes back: the return page. */
async function payAtWebpay(url: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: form,
    payload: new URLSearchParams({ ...linkParams(url), method: '1' }).toString(),
  });
  const token = /name="token_ws" value="([0-9a-f]+)"/.exec(res.body)?.[1];
  expect(token, res.body).toBeDefined();
  return { token: token!, back: await returnFromWebpay(token!) };
}

async function returnFromWebpay(token: string) {
  const back = await payerAtWebpay(sim.url, token);
  return t.app.inject({ method: 'GET', url: pathOf(back.headers.get('location')!) });
}

/** The state of the sale's refund (a sale refunded once) and when its dispatch is due. */
function refundRowOf(saleId: string) {
  return t.ctx.db
    .selectFrom('nullifications')
    .select(['status', 'dispatch_due_at'])
    .where('transaction_id', '=', saleId)
    .executeTakeFirstOrThrow();
}

describe('a commit or status answer that is not the sale (finding 1)', () => {
  it('a commit approved for another amount does not pay the sale', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 15000 });
    sim.rewrite.commit = (b) => ({ ...b, amount: 1 });
    const { token, back } = await payAtWebpay(created.url);
    expect(sim.transactions.get(token)!.state).toBe('AUTHORIZED');
    expect(back.body).not.toContain('Pago exitoso');
    expect(back.body).toContain('no corresponde a esta compra');
    expect(await facts(created.id)).toMatchObject({
      status: 'pending',
      captures: 0,
      callbacks: 0,
      sessions: ['declined'],
    });
  });

  it('a commit approved for another buy order or session id does not pay the sale', async () => {
    for (const field of ['buy_order', 'session_id'] as const) {
      const created = await createTransaction(t, shop, { payment: 1, amount: 4000 });
      sim.rewrite.commit = (b) => ({ ...b, [field]: 'otra-compra' });
      const { back } = await payAtWebpay(created.url);
      expect(back.body, field).not.toContain('Pago exitoso');
      expect(await facts(created.id), field).toMatchObject({ status: 'pending', captures: 0 });
    }
  });

  it('the status read after a lost commit, naming another amount, does not pay the sale', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 15000 });
    sim.commitFault = 'reset';
    sim.rewrite.status = (b) => ({ ...b, amount: 150 });
    const { back } = await payAtWebpay(created.url);
    expect(back.body).not.toContain('Pago exitoso');
    expect(await facts(created.id)).toMatchObject({ status: 'pending', captures: 0 });
  });

  it('the recovery does not pay a sale whose status names another buy order', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 6000 });
    sim.commitFault = 'reset';
    sim.statusFault = 'error';
    const { back } = await payAtWebpay(created.url);
    expect(back.body).toContain('Estamos procesando tu pago');
    sim.statusFault = 'none';
    sim.rewrite.status = (b) => ({ ...b, buy_order: 'att00000000000000000000' });
    t.clock.advanceMs(transactionLimits.acquirer.commitRecheckMs + 1_000);
    expect(await recoverLostCommits(t.ctx, { limit: 10 })).toBe(1);
    expect(await facts(created.id)).toMatchObject({
      status: 'pending',
      captures: 0,
      sessions: ['declined'],
    });
  });

  it('an amount as the string of the same integer pays the sale; a decimal does not', async () => {
    const asText = await createTransaction(t, shop, { payment: 1, amount: 8000 });
    sim.rewrite.commit = (b) => ({ ...b, amount: String(b.amount) });
    expect((await payAtWebpay(asText.url)).back.body).toContain('Pago exitoso');
    expect(await facts(asText.id)).toMatchObject({ status: 'success', captures: 1 });
    const decimal = await createTransaction(t, shop, { payment: 1, amount: 8000 });
    sim.rewrite.commit = (b) => ({ ...b, amount: 8000.5 });
    expect((await payAtWebpay(decimal.url)).back.body).not.toContain('Pago exitoso');
    expect(await facts(decimal.id)).toMatchObject({ status: 'pending', captures: 0 });
  });
});

describe('statuses and response codes (finding 2)', () => {
  it('a commit answered AUTHORIZED with a non-zero response code is declined (holds)', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 3000 });
    sim.rewrite.commit = (b) => ({ ...b, response_code: -1 });
    const { back } = await payAtWebpay(created.url);
    expect(back.body).toContain('Webpay rechazó el pago (código -1)');
    expect(await facts(created.id)).toMatchObject({ status: 'pending', captures: 0 });
  });

  it('a commit answered with a status Cobro does not know is decided by the status read, not declined', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 3500 });
    sim.rewrite.commit = (b) => ({ ...b, status: 'PENDING' });
    const { token, back } = await payAtWebpay(created.url);
    expect(sim.transactions.get(token)!.state).toBe('AUTHORIZED');
    expect(back.body).toContain('Pago exitoso');
    expect(await facts(created.id)).toMatchObject({ status: 'success', captures: 1 });
  });

  it('a status read with a status Cobro does not know keeps the session for the recovery', async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 3600 });
    sim.commitFault = 'reset';
    sim.rewrite.status = (b) => ({ ...b, status: 'PENDING' });
    const { back } = await payAtWebpay(created.url);
    expect(back.body).toContain('Estamos procesando tu pago');
    expect(await facts(created.id)).toMatchObject({ status: 'pending', sessions: ['committing'] });
    sim.rewrite.status = undefined;
    t.clock.advanceMs(transactionLimits.acquirer.commitRecheckMs + 1_000);
    expect(await recoverLostCommits(t.ctx, { limit: 10 })).toBe(1);
    expect(await facts(created.id)).toMatchObject({ status: 'success', captures: 1 });
  });
});

describe('refunds (finding 3)', () => {
  async function paid(amount: number) {
    const created = await createTransaction(t, shop, { payment: 1, amount });
    const { token, back } = await payAtWebpay(created.url);
    expect(back.body).toContain('Pago exitoso');
    return { created, token };
  }
  const refund = (id: string, amount: number) =>
    nullify(t, shop, { id, amount, subject: 'anulación' });

  it('a refund Transbank answers as NULLIFIED for another amount is not recorded as the one asked', async () => {
    const { created } = await paid(9000);
    sim.rewrite.refund = (b) => ({ ...b, nullified_amount: 9000 });
    const res = await refund(created.id, 2000);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().nullify.status_nullify).not.toBe('reverse_completed');
    expect(await refundRowOf(created.id)).toEqual({ status: 'complete', dispatch_due_at: null });
  });

  it('a partial refund Transbank answers as REVERSED (the whole charge) is not recorded as partial', async () => {
    const { created } = await paid(9100);
    sim.rewrite.refund = () => ({ type: 'REVERSED' });
    const res = await refund(created.id, 3000);
    expect(res.json().nullify.status_nullify).not.toBe('reverse_completed');
    expect(await refundRowOf(created.id)).toEqual({ status: 'complete', dispatch_due_at: null });
  });

  it('a total refund answered REVERSED, and a partial one whose nullified_amount is a string, are recorded (holds)', async () => {
    const whole = await paid(5000);
    expect((await refund(whole.created.id, 5000)).json().nullify.status_nullify).toBe(
      'reverse_completed',
    );
    expect(sim.transactions.get(whole.token)!.state).toBe('REVERSED');
    const part = await paid(5100);
    sim.rewrite.refund = (b) => ({ ...b, nullified_amount: String(b.nullified_amount) });
    expect((await refund(part.created.id, 100)).json().nullify.status_nullify).toBe(
      'reverse_completed',
    );
  });
});

describe("an account's Webpay keys changed between the create and the commit (finding 4)", () => {
  it('the commit and the refund are sent with the keys that created the transaction', async () => {
    const before = await startWebpaySimulator();
    try {
      const moved = await webpayShop(t, before, 'Tienda que cambia de llaves');
      const created = await createTransaction(t, moved, { payment: 1, amount: 7000 });
      const res = await t.app.inject({
        method: 'POST',
        url: '/gateway/cobro',
        headers: form,
        payload: new URLSearchParams({ ...linkParams(created.url), method: '1' }).toString(),
      });
      const token = /name="token_ws" value="([0-9a-f]+)"/.exec(res.body)?.[1] ?? res.body;
      // The operator moves the account to other keys (another environment) while the payer is at Transbank.
      expect((await setWebpayProcessor(t, moved.id, sim, '--environment', sim.url)).exitCode).toBe(
        0,
      );
      const back = await payerAtWebpay(before.url, token);
      const page = await t.app.inject({
        method: 'GET',
        url: pathOf(back.headers.get('location')!),
      });
      expect(page.body).toContain('Pago exitoso');
      expect(before.transactions.get(token)!.state).toBe('AUTHORIZED');
      expect(await facts(created.id)).toMatchObject({ status: 'success', captures: 1 });
      // Its refund goes to the same keys, while new sales go to the new ones.
      const refund = await nullify(t, moved, {
        id: created.id,
        amount: 2000,
        subject: 'anulación parcial',
      });
      expect(refund.json().nullify.status_nullify).toBe('reverse_completed');
      expect(before.transactions.get(token)).toMatchObject({ refunds: [2000], balance: 5000 });
      const next = await createTransaction(t, moved, { payment: 1, amount: 1000 });
      const { token: nextToken, back: nextBack } = await payAtWebpay(next.url);
      expect(nextBack.body).toContain('Pago exitoso');
      expect(sim.transactions.get(nextToken)!.state).toBe('AUTHORIZED');
    } finally {
      await before.close();
    }
  });
});

describe('a Webpay session created before migration 0860 (decision 998)', () => {
  it("names no keys, and its commit and refund use the account's current keys (holds)", async () => {
    const created = await createTransaction(t, shop, { payment: 1, amount: 6000 });
    const res = await t.app.inject({
      method: 'POST',
      url: '/gateway/cobro',
      headers: form,
      payload: new URLSearchParams({ ...linkParams(created.url), method: '1' }).toString(),
    });
    const token = /name="token_ws" value="([0-9a-f]+)"/.exec(res.body)?.[1] ?? res.body;
    // As the upgrade leaves a session the earlier release created: processor_sessions.webpay_keys_id is null.
    const cleared = await t.ctx.db
      .updateTable('processor_sessions')
      .set({ webpay_keys_id: null })
      .where('token', '=', token)
      .executeTakeFirst();
    expect(cleared.numUpdatedRows).toBe(1n);
    const page = await returnFromWebpay(token);
    expect(page.body).toContain('Pago exitoso');
    expect(sim.transactions.get(token)!.state).toBe('AUTHORIZED');
    expect(await facts(created.id)).toMatchObject({ status: 'success', captures: 1 });
    const refund = await nullify(t, shop, {
      id: created.id,
      amount: 1000,
      subject: 'anulación parcial',
    });
    expect(refund.json().nullify.status_nullify).toBe('reverse_completed');
    expect(sim.transactions.get(token)).toMatchObject({ refunds: [1000], balance: 5000 });
  });
});

// Production payouts sent as Fintoc transfers (issue 34 point 2): the real `fintoc` client against the local
// simulator (test/support/fintoc-simulator.ts), the webhook signed as Fintoc signs it. A payout is sent once with
// its id as idempotency key; the webhook resolves it; a lost answer is sent again with the same key (one transfer).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { startFintocShop } from '../../support/fintoc-shop.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { fintocLimits } from '../../../src/limits/index.ts';
import { balance, notificationsOf, payout } from '../wallet/wallet-helpers.ts';
import { dashboardBrowser } from '../../support/dashboard.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;

beforeAll(async () => {
  const made = await startFintocShop('Tienda Fintoc', 'cd', { payouts: { fundMinor: 100_000 } });
  ({ t, sim, shop } = made);
  expect(made.setOutput).toContain('payouts as Fintoc transfers from acc_sim1');
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

async function payoutRow(id: string) {
  return t.ctx.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

async function webhook(
  type: string,
  data: Record<string, unknown>,
  account = shop.id,
  tamper = false,
) {
  const ev = sim.signedEvent(type, data);
  return t.app.inject({
    method: 'POST',
    url: `/webhooks/fintoc/${account}`,
    headers: {
      'content-type': 'application/json',
      // Tampered: the signature's first hex digit changed (to 1 when it was 0: replaced by 0 it would still match).
      'fintoc-signature': tamper
        ? ev.signature.replace(/v1=(.)/, (_, d: string) => `v1=${d === '0' ? '1' : '0'}`)
        : ev.signature,
    },
    payload: ev.body,
  });
}

function transferOf(payoutId: string) {
  return [...sim.transfers.values()].filter(
    (x) => (x.metadata as Record<string, unknown>).cobro_payout_id === payoutId,
  );
}

describe('payouts through Fintoc', () => {
  it('cobro accounts set-processor --help shows the Fintoc options; a relative key file is refused', async () => {
    const help = await dispatch(['accounts', 'set-processor', '--help'], t.ctx);
    for (const o of [
      '--fintoc-secret-key',
      '--fintoc-webhook-secret',
      '--fintoc-jws-key-file',
      '--fintoc-account',
    ])
      expect(help.stdout, o).toContain(o);
    const rel = await dispatch(
      [
        'accounts',
        'set-processor',
        shop.id,
        '--fintoc-secret-key',
        'sk',
        '--fintoc-webhook-secret',
        'wh',
        '--fintoc-jws-key-file',
        'jws.pem',
      ],
      t.ctx,
    );
    expect(rel).toMatchObject({
      exitCode: 2,
      stderr: '--fintoc-jws-key-file must be an absolute path\n',
    });
  });

  it('sends the transfer once with the payout id as key, and the webhook makes it success with one callback', async () => {
    const created = (await payout(t, shop, { amount: 5000, order: 'f-1' })).json();
    expect(created.status).toBe('success');
    const id = created.identifier_payout as string;
    // Never filed in a bank payroll while it waits for the dispatch.
    const file = await dispatch(['payouts', 'export', '--bank', '0001'], t.ctx);
    expect(file.exitCode).toBe(0);
    expect(file.stdout).not.toContain(id);
    await drainDueWork(t.ctx);
    const sent = transferOf(id);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ amount: 5000, currency: 'CLP', reference_id: 'f-1' });
    expect((sent[0]!.counterparty as Record<string, unknown>).account_number).toBe('12312312312');
    expect((await payoutRow(id)).status).toBe('processing');
    expect(await balance(t, shop)).toBe(95_000);

    const bad = await webhook(
      'transfer.outbound.succeeded',
      { ...sent[0], status: 'succeeded' },
      shop.id,
      true,
    );
    expect(bad.statusCode).toBe(401);
    expect((await payoutRow(id)).status).toBe('processing');

    const ok = await webhook('transfer.outbound.succeeded', { ...sent[0], status: 'succeeded' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().result).toBe('applied');
    expect((await payoutRow(id)).status).toBe('success');
    // Delivered again (a new delivery of the same result) and out of order (a late failure): nothing changes.
    expect(
      (await webhook('transfer.outbound.succeeded', { ...sent[0], status: 'succeeded' })).json()
        .result,
    ).toBe('already_final');
    expect(
      (await webhook('transfer.outbound.failed', { ...sent[0], status: 'failed' })).json().result,
    ).toBe('already_final');
    expect((await payoutRow(id)).status).toBe('success');
    const notes = (await notificationsOf(t, shop.id)).filter(
      (n) => (n.payload as { id: string }).id === id,
    );
    expect(notes.map((n) => n.event_type)).toEqual(['payout.result']);
    expect(await balance(t, shop)).toBe(95_000);
  });

  it('answers a replayed event (same id) as a duplicate', async () => {
    const created = (await payout(t, shop, { amount: 1200, order: 'f-replay' })).json();
    await drainDueWork(t.ctx);
    const [sent] = transferOf(created.identifier_payout);
    const ev = sim.signedEvent('transfer.outbound.succeeded', { ...sent, status: 'succeeded' });
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: `/webhooks/fintoc/${shop.id}`,
        headers: { 'content-type': 'application/json', 'fintoc-signature': ev.signature },
        payload: ev.body,
      });
    expect((await post()).json().result).toBe('applied');
    expect((await post()).json().result).toBe('duplicate');
    expect((await payoutRow(created.identifier_payout)).status).toBe('success');
  });

  it('a rejected transfer is a banking_error with its reason, and the money returns to the wallet', async () => {
    const before = await balance(t, shop);
    const created = (await payout(t, shop, { amount: 3000, order: 'f-2' })).json();
    await drainDueWork(t.ctx);
    const [sent] = transferOf(created.identifier_payout);
    const res = await webhook('transfer.outbound.rejected', {
      ...sent,
      status: 'rejected',
      failure_reason: 'account_not_found',
    });
    expect(res.json().result).toBe('applied');
    const row = await payoutRow(created.identifier_payout);
    expect(row.status).toBe('banking_error');
    expect(row.reason_rejection).toBe('Fintoc: transfer rejected, account_not_found');
    expect(await balance(t, shop)).toBe(before);
  });

  it("a transfer Fintoc refuses outright is a banking_error with Fintoc's message", async () => {
    sim.transferFault = 'refuse';
    const created = (await payout(t, shop, { amount: 2000, order: 'f-3' })).json();
    await drainDueWork(t.ctx);
    sim.transferFault = null;
    const row = await payoutRow(created.identifier_payout);
    expect(row.status).toBe('banking_error');
    expect(row.reason_rejection).toContain('counterparty account_number is invalid');
  });

  it('a lost answer is sent again with the same key: one transfer, resolved by the webhook', async () => {
    sim.transferFault = 'reset';
    const created = (await payout(t, shop, { amount: 4000, order: 'f-4' })).json();
    const id = created.identifier_payout as string;
    await drainDueWork(t.ctx);
    expect(transferOf(id)).toHaveLength(1);
    expect((await payoutRow(id)).status).toBe('processing');
    // Before the resend delay nothing is sent again; after it, the same key: Fintoc answers the same transfer.
    await drainDueWork(t.ctx);
    sim.transferFault = null;
    t.clock.advanceMs(fintocLimits.transferResendAfterMs + 1000);
    await drainDueWork(t.ctx);
    const posts = sim.calls.filter((c) => c === 'POST /v2/transfers').length;
    expect(transferOf(id)).toHaveLength(1);
    const sentRow = await t.ctx.db
      .selectFrom('fintoc_transfers')
      .selectAll()
      .where('payout_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(sentRow).toMatchObject({
      state: 'sent',
      attempts: 2,
      transfer_id: transferOf(id)[0]!.id,
    });
    await drainDueWork(t.ctx);
    expect(sim.calls.filter((c) => c === 'POST /v2/transfers').length).toBe(posts);
    expect(
      (
        await webhook('transfer.outbound.succeeded', { ...transferOf(id)[0], status: 'succeeded' })
      ).json().result,
    ).toBe('applied');
    expect((await payoutRow(id)).status).toBe('success');
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });

  it('withdrawals go the same way', async () => {
    const bank = await dispatch(
      [
        'accounts',
        'set-bank',
        shop.id,
        '--sbif',
        '0012',
        '--type',
        '2',
        '--num',
        '12345678',
        '--rut',
        '76123456K',
        '--name',
        'Comercio SpA',
      ],
      t.ctx,
    );
    expect(bank.exitCode).toBe(0);
    const w = await t.call(shop, {
      method: 'POST',
      url: '/api/wallet/withdraw',
      body: { amount: 1000, currency: 'CLP', order: 'w-1', subject: 'withdraw w-1' },
      sign: true,
    });
    expect(w.json().status, w.body).toBe('Success');
    const { id: wid } = await t.ctx.db
      .selectFrom('payouts')
      .select('id')
      .where('account_id', '=', shop.id)
      .where('kind', '=', 'withdrawal')
      .executeTakeFirstOrThrow();
    await drainDueWork(t.ctx);
    const [sent] = transferOf(wid);
    expect(sent).toMatchObject({ amount: 1000, metadata: { cobro_kind: 'withdrawal' } });
    expect((sent!.counterparty as Record<string, unknown>).account_type).toBe('sight_account');
    expect(
      (await webhook('transfer.outbound.succeeded', { ...sent, status: 'succeeded' })).json()
        .result,
    ).toBe('applied');
    expect((await payoutRow(wid)).status).toBe('success');
  });

  it('reconciles the Fintoc movements: an unexpected one and a missing one are reported', async () => {
    // The simulator's transfers in the state Fintoc's webhook told Cobro.
    for (const tr of sim.transfers.values()) {
      const mine = await t.ctx.db
        .selectFrom('fintoc_transfers')
        .select('state')
        .where('transfer_id', '=', String(tr.id))
        .executeTakeFirst();
      tr.status = mine?.state === 'failed' ? 'rejected' : 'succeeded';
    }
    const clean = await dispatch(['fintoc', 'reconcile', '--account', shop.id], t.ctx);
    expect(clean.stdout).toMatch(/^\d+ matched, 0 reported/);
    expect(clean.exitCode).toBe(0);
    sim.extraMovements.push({
      id: 'mov_extra',
      amount: 777,
      currency: 'CLP',
      direction: 'inbound',
      metadata: {},
    });
    const gone = [...sim.transfers.values()].find((x) => x.status === 'succeeded')!;
    sim.transfers.delete(String(gone.id));
    t.clock.advanceMs(fintocLimits.movementWindowMs + 60_000);
    const out = await dispatch(['fintoc', 'reconcile', '--account', shop.id], t.ctx);
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toContain(
      'unmatched_movement mov_extra 777 CLP: no payout, withdrawal or sale of Cobro',
    );
    expect(out.stdout).toContain(
      `missing_movement ${String((gone.metadata as Record<string, unknown>).cobro_payout_id)}`,
    );
    const kept = await t.ctx.db
      .selectFrom('fintoc_movement_findings')
      .select(['kind', 'subject'])
      .where('account_id', '=', shop.id)
      .execute();
    expect(kept.map((k) => k.kind).sort()).toEqual(['missing_movement', 'unmatched_movement']);
    // The dashboard's payouts page shows them.
    const b = dashboardBrowser(t);
    await b.signIn(shop);
    const page = await b.get('/dashboard/payouts');
    expect(page.body).toContain('Conciliación con Fintoc');
    expect(page.body).toContain('mov_extra');
    expect(page.body).toContain('Movimiento faltante');
  });
});

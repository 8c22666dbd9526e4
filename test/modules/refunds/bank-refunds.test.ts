// Refunds of bank-transfer payments (issue 11 point 2, decision 112): the money is collected at once and the refund
// waits for the payer's bank details (`waiting_bank_details`); `cobro refunds set-bank-details` records them and a
// payout of kind `refund` carries it through the payouts' bank channel: the sandbox clock, or in production the
// payroll file (`cobro payouts export` / `import`), a rejection asking for new details. Over HTTP and the CLI, with
// balances to the peso, the ledger verified and each state called back signed to a local receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { accountsSetFee } from '../../../src/cli/commands/accounts-fee.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { webhookSignature } from '../../../src/platform/notifications/sign.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { createTransaction, submit } from '../transactions/helpers.ts';
import { payout } from '../wallet/wallet-helpers.ts';
import { balanceOf, nullify, paidSale, settle, system } from './helpers.ts';

let t: TestApp;
let receiver: Receiver;
let dir: string;
beforeAll(async () => {
  [t, receiver] = await Promise.all([startTestApp(), startReceiver()]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-refund-payroll-'));
});
afterAll(async () => {
  await Promise.all([t.close(), receiver.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const bankDetails = [
  '--sbif',
  '0012',
  '--type',
  '2',
  '--num',
  '12345678',
  '--rut',
  '111111111',
  '--name',
  'Juan Pérez',
];

async function bankSale(a: TestAccount, amount: number, order: string): Promise<string> {
  const created = await createTransaction(t, a, {
    amount,
    order,
    payment: 4,
    additional_parameters: { payer_rut: '111111111' },
  });
  await submit(t, created.url, 4, { rut: '11.111.111-1', password: '123', bank: '0001' });
  expect(
    (await t.call(a, { method: 'GET', url: `/api/transaction/${created.id}` })).json().status,
  ).toBe('success');
  return created.id;
}

async function merchant(path: string): Promise<TestAccount> {
  const a = await t.createAccount();
  expect(
    (
      await dispatch(
        ['accounts', 'set-urls', a.id, '--nullification-url', `${receiver.url}${path}`],
        t.ctx,
      )
    ).exitCode,
  ).toBe(0);
  expect(
    (
      await accountsSetFee.run(t.ctx, {
        values: { payment: '4', percent: '1' },
        positionals: [a.id],
      })
    ).exitCode,
  ).toBe(0);
  return a;
}

const refundOf = async (transactionId: string) =>
  t.ctx.db
    .selectFrom('nullifications')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .orderBy('seq', 'desc')
    .executeTakeFirstOrThrow();
const stateOf = async (a: TestAccount, id: string) =>
  (await t.call(a, { method: 'GET', url: `/api/nullification/${id}`, sign: true })).json().nullify
    .status_nullify as string;

/** The states of refund `refundId` called back to `callbackPath`, each signature checked, sorted. */
async function calledBack(
  a: TestAccount,
  callbackPath: string,
  refundId: string,
): Promise<string[]> {
  await deliverDueNotifications(t.ctx, { accountId: a.id });
  const sent = await t.ctx.db
    .selectFrom('notifications')
    .select(['id', 'payload'])
    .where('account_id', '=', a.id)
    .where('event_type', '=', 'nullification.result')
    .execute();
  const ids = new Set(sent.map((n) => n.id));
  const bodies = receiver.requests.filter(
    (r) => r.path === callbackPath && ids.has(String(r.headers['webhook-id'])),
  );
  for (const r of bodies) {
    expect(r.headers['webhook-signature']).toBe(
      webhookSignature(
        a.webhookSecret,
        String(r.headers['webhook-id']),
        Number(r.headers['webhook-timestamp']),
        r.body,
      ),
    );
  }
  expect(bodies.length).toBe(sent.length);
  return bodies
    .map((r) => JSON.parse(r.body))
    .filter((b) => b.id_nullification === refundId)
    .map((b) => b.status as string)
    .sort();
}

describe('bank-transfer refunds', () => {
  it("collect at once, wait for the payer's bank details, pay out on the sandbox clock and complete, to the peso", async () => {
    const a = await merchant('/bank/a');
    const id = await bankSale(a, 10_000, 'transfer-1');
    const [clearing, bank, fees] = await Promise.all([
      balanceOf(t, system, 'refund_clearing'),
      balanceOf(t, system, 'bank_clearing'),
      balanceOf(t, system, 'fee_refunds'),
    ]);
    const res = (await nullify(t, a, { id, amount: 10_000 })).json();
    expect(res.nullify).toMatchObject({
      id,
      amount: 10_000,
      type: 'total',
      status_nullify: 'waiting_bank_details',
      payment: { gateway: 'etpay' },
    });
    expect(res.gateway_response.message).toBe(
      "The cancellation will be paid to the payer's bank account once its details are recorded",
    );
    // The fee (1% = 100) comes back; the sale's unsettled net (9900) pays the rest; nothing is sent yet.
    expect(await balanceOf(t, a.id, 'pending_settlement')).toBe(0n);
    expect(await balanceOf(t, system, 'fee_refunds')).toBe(fees - 100n);
    expect(await balanceOf(t, system, 'refund_clearing')).toBe(clearing + 10_000n);
    const sale = (await t.call(a, { method: 'GET', url: `/api/transaction/${id}` })).json();
    expect([sale.status, sale.nullify]).toEqual(['refunded', { status: 'waiting_bank_details' }]);
    const refund = await refundOf(id);
    expect([refund.channel, refund.dispatch_due_at]).toEqual(['bank', null]);
    await settle(t, a);
    expect(await stateOf(a, refund.id)).toBe('waiting_bank_details');

    // Details checked as a payout destination's: refused ones change nothing.
    for (const [bad, message] of [
      [['--type', '4'], /--type must be 1/],
      [['--sbif', '9999'], /unknown CLP bank code 9999/],
      [
        ['--sbif', '0012', '--num', '1234567890123'],
        /Banco Estado account numbers have at most 12 characters/,
      ],
      [['--name', ' '], /--name must have/],
      // No account a bank can pay (decision 1175): a sign, a point, fullwidth digits.
      [['--num', '-1'], /--num must be the digits 0-9/],
      [['--num', '1.5'], /--num must be the digits 0-9/],
      [['--num', '１２３４５６'], /--num must be the digits 0-9/],
    ] as const) {
      const out = await dispatch(
        ['refunds', 'set-bank-details', refund.id, ...bankDetails, ...bad],
        t.ctx,
      );
      expect([out.exitCode, out.stderr], bad.join(' ')).toEqual([
        2,
        expect.stringMatching(message),
      ]);
    }
    expect(await stateOf(a, refund.id)).toBe('waiting_bank_details');
    expect(
      (await dispatch(['refunds', 'set-bank-details', refund.id, '--sbif', '0012'], t.ctx))
        .exitCode,
    ).toBe(2);
    expect(
      (await dispatch(['refunds', 'set-bank-details', 'nulnope', ...bankDetails], t.ctx)).stderr,
    ).toBe('no refund with id nulnope\n');
    const card = await paidSale(t, a, 2_000, 'card-1');
    await nullify(t, a, { id: card, amount: 2_000 });
    expect(
      (
        await dispatch(
          ['refunds', 'set-bank-details', (await refundOf(card)).id, ...bankDetails],
          t.ctx,
        )
      ).stderr,
    ).toMatch(/is reverse_completed: only a refund in waiting_bank_details takes bank details/);
    expect(
      await t.ctx.db.selectFrom('payouts').select('id').where('account_id', '=', a.id).execute(),
    ).toEqual([]);

    const set = JSON.parse(
      (await dispatch(['refunds', 'set-bank-details', refund.id, ...bankDetails, '--json'], t.ctx))
        .stdout,
    );
    expect(set).toEqual({
      id: refund.id,
      status: 'complete',
      payout_id: expect.stringMatching(/^mor/),
    });
    const out = await t.ctx.db
      .selectFrom('payouts')
      .selectAll()
      .where('id', '=', set.payout_id)
      .executeTakeFirstOrThrow();
    expect(out).toMatchObject({
      kind: 'refund',
      status: 'pending',
      amount_minor: 10_000n,
      order: `${refund.id}-1`,
      accountbank_sbif: '0012',
      accountbank_num: '12345678',
      accountbank_name: 'Juan Pérez',
      accountbank_rut: '111111111',
      email: 'payer@example.com',
      movement_id: null,
    });
    expect(await stateOf(a, refund.id)).toBe('complete');
    // Another attempt while the payout is out is refused.
    expect(
      (await dispatch(['refunds', 'set-bank-details', refund.id, ...bankDetails], t.ctx)).stderr,
    ).toMatch(/is complete/);

    // The sandbox pays it on its clock like any payout: the money leaves refund clearing for the bank.
    await t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { hours: 2 } });
    expect(await stateOf(a, refund.id)).toBe('reverse_completed');
    expect(
      (
        await t.ctx.db
          .selectFrom('payouts')
          .select('status')
          .where('id', '=', set.payout_id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('success');
    expect(await balanceOf(t, system, 'refund_clearing')).toBe(clearing + 2_000n);
    expect(await balanceOf(t, system, 'bank_clearing')).toBe(bank + 10_000n);
    expect([
      await balanceOf(t, a.id, 'wallet_available'),
      await balanceOf(t, a.id, 'wallet_reserved'),
    ]).toEqual([0n, 0n]);
    expect(
      (await t.call(a, { method: 'GET', url: `/api/transaction/${id}` })).json().nullify,
    ).toEqual({ status: 'reverse_completed' });
    const shown = JSON.parse(
      (await dispatch(['refunds', 'show', refund.id, '--json'], t.ctx)).stdout,
    );
    expect(shown).toMatchObject({
      channel: 'bank',
      payout: { id: set.payout_id, status: 'success', bank: '0012', num_last4: '5678' },
    });
    expect(await calledBack(a, '/bank/a', refund.id)).toEqual([
      'complete',
      'reverse_completed',
      'waiting_bank_details',
    ]);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('in production go out in the payroll file; a rejected payout asks for new details, the next one pays; a refund waiting for funds waits for details once collected', async () => {
    // The operator's production deployment over the same database: payouts without a due time, exported to the bank.
    const prod = await startTestApp({
      sharing: t,
      env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'cd'.repeat(32) },
    });
    try {
      const a = await merchant('/bank/b');
      const id = await bankSale(a, 6_000, 'transfer-2');
      await settle(t, a);
      expect(await balanceOf(t, a.id, 'wallet_available')).toBe(5_940n);
      expect((await payout(t, a, { amount: 5_000, order: 'spend' })).json().status).toBe('success');
      await t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { hours: 2 } });
      // 940 in the wallet: the 6000 refund (5940 the merchant's, 60 the fee) takes it and waits for 5000 more.
      expect((await nullify(t, a, { id, amount: 6_000 })).json().nullify).toMatchObject({
        type: 'partial',
        status_nullify: 'awaiting_funds',
      });
      const refund = await refundOf(id);
      await bankSale(a, 7_000, 'transfer-3');
      await settle(t, a);
      expect(await stateOf(a, refund.id)).toBe('waiting_bank_details');
      expect(await balanceOf(t, a.id, 'wallet_available')).toBe(1_930n);
      const clearing = await balanceOf(t, system, 'refund_clearing');
      const bank = await balanceOf(t, system, 'bank_clearing');

      const run = (...argv: string[]) => dispatch(argv, prod.ctx);
      const first = JSON.parse(
        (await run('refunds', 'set-bank-details', refund.id, ...bankDetails, '--json')).stdout,
      );
      expect(
        (
          await prod.ctx.db
            .selectFrom('payouts')
            .select('due_at')
            .where('id', '=', first.payout_id)
            .executeTakeFirstOrThrow()
        ).due_at,
      ).toBeNull();
      const exportBatch = async () => {
        const out = await run('payouts', 'export', '--bank', '0001');
        expect(out.exitCode).toBe(0);
        return (parse(out.stdout, { columns: true }) as Record<string, string>[]).filter(
          (r) => r.kind === 'refund',
        );
      };
      const exported = await exportBatch();
      expect(exported).toEqual([
        expect.objectContaining({
          payout_id: first.payout_id,
          kind: 'refund',
          amount: '6000',
          beneficiary_bank: '0012',
          account_number: '12345678',
        }),
      ]);
      const results = (rows: Record<string, string>[], status: string, reason = '') => {
        const file = path.join(dir, `results-${status}.csv`);
        fs.writeFileSync(
          file,
          [
            'batch_id,payout_id,status,reason',
            ...rows.map((r) => `${r.batch_id},${r.payout_id},${status},${reason}`),
          ].join('\n'),
        );
        return file;
      };
      expect(
        (await run('payouts', 'import', results(exported, 'banking_error', 'cuenta inexistente')))
          .stdout,
      ).toMatch(/^0 success, 1 banking_error/);
      expect(await stateOf(a, refund.id)).toBe('waiting_bank_details');
      // A rejected refund payout moves no money: it stays collected for the next attempt.
      expect(await balanceOf(t, system, 'refund_clearing')).toBe(clearing);
      expect(await balanceOf(t, a.id, 'wallet_available')).toBe(1_930n);

      const second = JSON.parse(
        (
          await run(
            'refunds',
            'set-bank-details',
            refund.id,
            ...bankDetails.slice(0, 4),
            '--num',
            '87654321',
            ...bankDetails.slice(6),
            '--json',
          )
        ).stdout,
      );
      expect(
        (
          await prod.ctx.db
            .selectFrom('payouts')
            .select('order')
            .where('id', '=', second.payout_id)
            .executeTakeFirstOrThrow()
        ).order,
      ).toBe(`${refund.id}-2`);
      const again = await exportBatch();
      expect(again.map((r) => r.payout_id)).toEqual([second.payout_id]);
      expect((await run('payouts', 'import', results(again, 'success'))).stdout).toMatch(
        /^1 success/,
      );
      expect((await run('payouts', 'import', results(again, 'success'))).stdout).toMatch(
        /1 already resolved/,
      );
      expect(await stateOf(a, refund.id)).toBe('reverse_completed');
      expect(await balanceOf(t, system, 'refund_clearing')).toBe(clearing - 6_000n);
      expect(await balanceOf(t, system, 'bank_clearing')).toBe(bank + 6_000n);
      expect(await balanceOf(t, a.id, 'wallet_available')).toBe(1_930n);
      expect(await calledBack(a, '/bank/b', refund.id)).toEqual([
        'awaiting_funds',
        'complete',
        'complete',
        'reverse_completed',
        'waiting_bank_details',
        'waiting_bank_details',
      ]);
      expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
    } finally {
      await prod.close();
    }
  });
});

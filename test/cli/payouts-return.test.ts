// Decisions 915, 980: `cobro payouts return ID --reason TEXT` takes back a paid payout the receiving bank returned
// (a bank file's, or one made `success` by hand; never a Fintoc transfer's) as a Fintoc return does (decision 830):
// `success` -> `banking_error`, the money from bank clearing back to the wallet (journal `payout.returned`), the
// chargeback debt paid first (decision 905), a second `payout.result` callback and an audit row; run again, or twice
// at once, it moves the money once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startFintocSimulator, type FintocSimulator } from '../support/fintoc-simulator.ts';
import { fintocPayoutSucceeded, fintocShop, paidFintocSale } from '../support/fintoc-shop.ts';
import { runOnContext } from '../support/cli-in-process.ts';
import { ledgerCodes } from '../../src/platform/ledger/ledger.ts';
import { drainDueWork } from '../../src/platform/work/due-work.ts';
import { balance, notificationsOf, payout } from '../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let sim: FintocSimulator;
let dir: string;
beforeAll(async () => {
  sim = await startFintocSimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'c7'.repeat(32) } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-return-'));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const cobro = (...argv: string[]) => runOnContext(argv, t.ctx);
const dayMs = 24 * 60 * 60 * 1000;

async function funded(amount: number): Promise<TestAccount> {
  const a = await t.createAccount();
  const credit = await cobro(
    'wallet',
    'credit',
    '--key',
    crypto.randomUUID(),
    '--account',
    a.id,
    '--amount',
    String(amount),
    '--reason',
    'f',
  );
  expect(credit.code, credit.stderr).toBe(0);
  return a;
}

/** A payout of the account sent in a bank file and paid by the bank's results: `success`. */
async function paidByBankFile(a: TestAccount, amount: number, order: string): Promise<string> {
  const created = await payout(t, a, { amount, order });
  expect(created.json().status, created.body).toBe('success');
  const id = created.json().identifier_payout as string;
  const exported = await cobro('payouts', 'export', '--bank', '0001');
  expect(exported.code, exported.stderr).toBe(0);
  const file = path.join(dir, `${order}.csv`);
  fs.writeFileSync(file, `payout_id,status,reason\n${id},success,\n`);
  const imported = await cobro('payouts', 'import', file);
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.stdout).toBe(
    '1 success, 0 banking_error, 0 already resolved, 0 left processing\n',
  );
  expect((await payoutRead(a, id)).status).toBe('success');
  return id;
}

/** A payout of the account made `success` by hand (`cobro payouts resolve`), in no bank file. */
async function paidByHand(a: TestAccount, amount: number, order: string): Promise<string> {
  const id = (await payout(t, a, { amount, order })).json().identifier_payout as string;
  for (const status of ['processing', 'success']) {
    const resolved = await cobro('payouts', 'resolve', id, '--status', status);
    expect(resolved.code, resolved.stderr).toBe(0);
  }
  expect((await payoutRead(a, id)).status).toBe('success');
  return id;
}

async function payoutRead(a: TestAccount, id: string) {
  const res = await t.call(a, { method: 'GET', url: `/api/payoutv3/${id}`, sign: true });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().payout as Record<string, unknown>;
}

async function latestMovements(a: TestAccount, count: number) {
  const res = await t.call(a, { method: 'GET', url: '/api/wallet', sign: true });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().wallet_movements as Record<string, unknown>[]).slice(0, count);
}

async function payoutResults(accountId: string) {
  return (await notificationsOf(t, accountId))
    .filter((n) => n.event_type === 'payout.result')
    .map((n) => (n.payload as { status: string }).status);
}

async function auditRows(target: string) {
  return t.ctx.db
    .selectFrom('audit_log')
    .select(['action', 'chain'])
    .where('target', '=', target)
    .where('action', '=', 'cobro payouts return')
    .execute();
}

async function returnedJournals(id: string) {
  return t.ctx.db
    .selectFrom('journal_entries')
    .select('kind')
    .where('reference', '=', id)
    .where('kind', '=', 'payout.returned')
    .execute();
}

async function ledgerClean(): Promise<void> {
  const verify = await cobro('ledger', 'verify');
  expect(verify.code, verify.stderr + verify.stdout).toBe(0);
}

/** A Fintoc shop named `name` whose paid sale `order` of 10 000 has settled into its wallet: the shop and sale. */
async function shopWithSettledSale(name: string, order: string) {
  const { shop } = await fintocShop(t, sim, name);
  const saleId = await paidFintocSale(t, sim, shop, order, 10_000);
  t.clock.advanceMs(30 * dayMs);
  await drainDueWork(t.ctx);
  return { shop, saleId };
}

/** Opens a 4 000 fraud dispute of the sale `saleId` of `shop`: its chargeback debt as the ledger holds it. */
async function chargebackDebtOf(shop: TestAccount, saleId: string) {
  const opened = await cobro(
    'disputes',
    'open',
    '--transaction',
    saleId,
    '--amount',
    '4000',
    '--reason',
    'fraud',
    '--key',
    `CB-${saleId}`,
  );
  expect(opened.code, opened.stderr).toBe(0);
  return () =>
    t.ctx.ledger.balance(t.ctx.db, {
      owner: shop.id,
      code: ledgerCodes.disputeDebt,
      currency: 'CLP',
    });
}

/** What `payouts resolve ID --status banking_error` answers for a paid payout the bank can return. */
const resolveNamesReturn = (id: string) =>
  `payout ${id} is success and cannot become banking_error; a payout the bank returned: cobro payouts return ${id} --reason TEXT\n`;

/** `payouts return` of the paid payout `id` of `a`: `amount` back in the wallet, the payout `banking_error`. */
async function returned(a: TestAccount, id: string, amount: number) {
  const out = await cobro('payouts', 'return', id, '--reason', 'Cuenta cerrada');
  expect(out.code, out.stderr).toBe(0);
  expect(out.stdout).toBe(
    `payout ${id} returned: ${amount} CLP back in the wallet, now banking_error\n`,
  );
  expect(await payoutRead(a, id)).toMatchObject({
    status: 'banking_error',
    reason_rejection: 'Cuenta cerrada',
  });
}

/** `payouts return` of the payout `id` already returned: refused. */
async function returnedAgainRefused(id: string) {
  const again = await cobro('payouts', 'return', id, '--reason', 'Cuenta cerrada');
  expect(again.code).toBe(1);
  expect(again.stderr).toBe(
    `payout ${id} is banking_error: only a paid (success) payout can be returned\n`,
  );
}

/** Two `payouts return` of the payout `id` at once: one succeeds, the other is refused. */
async function twoReturnsAtOnce(id: string) {
  const outs = await Promise.all([
    cobro('payouts', 'return', id, '--reason', 'Cuenta cerrada'),
    cobro('payouts', 'return', id, '--reason', 'Cuenta cerrada'),
  ]);
  expect(outs.map((o) => o.code).sort()).toEqual([0, 1]);
  return outs;
}

describe('cobro payouts return', () => {
  it('gives a returned bank-file payout back to the wallet once, with its callback and audit row', async () => {
    const a = await funded(100_000);
    const id = await paidByBankFile(a, 30_000, 'ret-1');
    expect(await balance(t, a)).toBe(70_000);
    // `payouts resolve` still refuses a paid payout, and names the command that takes a return.
    const resolve = await cobro('payouts', 'resolve', id, '--status', 'banking_error');
    expect(resolve.code).toBe(1);
    expect(resolve.stderr).toBe(resolveNamesReturn(id));
    expect(await balance(t, a)).toBe(70_000);

    await returned(a, id, 30_000);
    expect(await balance(t, a)).toBe(100_000);
    expect(await latestMovements(a, 1)).toEqual([
      expect.objectContaining({ order: 'ret-1', income_expense: 'income', amount: '30000' }),
    ]);
    expect(await payoutResults(a.id)).toEqual(['success', 'banking_error']);
    expect(await returnedJournals(id)).toHaveLength(1);
    expect(await auditRows(id)).toEqual([{ action: 'cobro payouts return', chain: a.id }]);
    await ledgerClean();

    // Run again: refused, nothing moves, no second callback, no second audit row.
    await returnedAgainRefused(id);
    expect(await balance(t, a)).toBe(100_000);
    expect(await payoutResults(a.id)).toEqual(['success', 'banking_error']);
    expect(await returnedJournals(id)).toHaveLength(1);
    expect(await auditRows(id)).toHaveLength(1);
    // The results file imported again does not make it paid again.
    const file = path.join(dir, 'ret-1.csv');
    const reimport = await cobro('payouts', 'import', file);
    expect(reimport.code).toBe(1);
    expect(reimport.stderr).toContain(`payout ${id} is already banking_error`);
    expect(await balance(t, a)).toBe(100_000);
    await ledgerClean();
  });

  it('refuses payouts that are not a bank file’s success, and bad input, moving nothing', async () => {
    const a = await funded(100_000);
    const pending = (await payout(t, a, { amount: 1_000, order: 'ref-pending' })).json()
      .identifier_payout as string;
    // Paid by hand (decision 980 returns it), here only for the input checks, which come first.
    const byHand = await paidByHand(a, 2_000, 'ref-hand');
    const before = await balance(t, a);
    const refusals: [string[], number, string][] = [
      [
        [pending, '--reason', 'x'],
        1,
        `payout ${pending} is pending: only a paid (success) payout can be returned`,
      ],
      [['mor00000000000000000', '--reason', 'x'], 1, 'no payout with id mor00000000000000000'],
      [[byHand], 2, 'usage: cobro payouts return ID --reason TEXT'],
      [[byHand, '--reason', '  '], 2, '--reason must have 1 to 200 characters'],
      [[byHand, '--reason', 'x'.repeat(201)], 2, '--reason must have 1 to 200 characters'],
    ];
    for (const [args, code, text] of refusals) {
      const out = await cobro('payouts', 'return', ...args);
      expect(out.code, args.join(' ')).toBe(code);
      expect(out.stderr).toContain(text);
    }
    expect(await balance(t, a)).toBe(before);
    expect(await auditRows(pending)).toHaveLength(0);
    expect(await auditRows(byHand)).toHaveLength(0);
  });

  it('refuses a bank-file payout still processing or rejected by the results', async () => {
    const a = await funded(100_000);
    const created = (await payout(t, a, { amount: 3_000, order: 'ref-proc' })).json();
    const id = created.identifier_payout as string;
    expect((await cobro('payouts', 'export', '--bank', '0001')).code).toBe(0);
    const processing = await cobro('payouts', 'return', id, '--reason', 'x');
    expect(processing.code).toBe(1);
    expect(processing.stderr).toContain(`payout ${id} is processing`);
    const file = path.join(dir, 'rejected.csv');
    fs.writeFileSync(file, `payout_id,status,reason\n${id},banking_error,Cuenta inexistente\n`);
    expect((await cobro('payouts', 'import', file)).code).toBe(0);
    const before = await balance(t, a);
    const rejected = await cobro('payouts', 'return', id, '--reason', 'x');
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain(`payout ${id} is banking_error`);
    expect(await balance(t, a)).toBe(before);
    expect(await payoutResults(a.id)).toEqual(['banking_error']);
    await ledgerClean();
  });

  it('pays the chargeback debt first from the money returned', async () => {
    const { shop, saleId } = await shopWithSettledSale('Tienda Devuelta', 'debt-sale');
    expect(await balance(t, shop)).toBe(10_000);
    // No Fintoc payouts for this shop: its payout leaves in the bank file.
    const id = await paidByBankFile(shop, 10_000, 'debt-out');
    const debt = await chargebackDebtOf(shop, saleId);
    expect(await debt()).toBe(-4_000n);

    const out = await cobro('payouts', 'return', id, '--reason', 'Cuenta cerrada');
    expect(out.code, out.stderr).toBe(0);
    expect(await debt()).toBe(0n);
    expect(await balance(t, shop)).toBe(6_000);
    // Newest first: the debt's expense after the return's income, both naming the payout's order.
    expect(await latestMovements(shop, 2)).toEqual([
      expect.objectContaining({
        order: 'debt-out',
        subject: 'chargeback debt paid',
        income_expense: 'expense',
        amount: '4000',
        actual_amount: '6000',
      }),
      expect.objectContaining({ order: 'debt-out', income_expense: 'income', amount: '10000' }),
    ]);
    await ledgerClean();
  });

  it('two returns at once move the money once', async () => {
    const a = await funded(100_000);
    const id = await paidByBankFile(a, 25_000, 'race-1');
    const outs = await twoReturnsAtOnce(id);
    expect(outs.find((o) => o.code === 1)?.stderr).toContain(`payout ${id} is banking_error`);
    expect(await balance(t, a)).toBe(100_000);
    expect(await payoutResults(a.id)).toEqual(['success', 'banking_error']);
    expect(await returnedJournals(id)).toHaveLength(1);
    expect(await auditRows(id)).toHaveLength(1);
    await ledgerClean();
  });
  // Decision 980: a payout made `success` by hand went through no file Cobro wrote, but its bank can send it back
  // all the same; the operator who said it was paid says it came back, with the same guarantees.
  it('returns a payout paid by hand once, paying the debt first, with its callback and audit row', async () => {
    const { shop, saleId } = await shopWithSettledSale('Tienda A Mano', 'hand-sale');
    const id = await paidByHand(shop, 10_000, 'hand-out');
    expect(await balance(t, shop)).toBe(0);
    const debt = await chargebackDebtOf(shop, saleId);
    expect(await debt()).toBe(-4_000n);
    const resolve = await cobro('payouts', 'resolve', id, '--status', 'banking_error');
    expect(resolve.stderr).toBe(resolveNamesReturn(id));

    await returned(shop, id, 10_000);
    expect(await debt()).toBe(0n);
    expect(await balance(t, shop)).toBe(6_000);
    expect(await latestMovements(shop, 2)).toEqual([
      expect.objectContaining({
        order: 'hand-out',
        subject: 'chargeback debt paid',
        income_expense: 'expense',
        amount: '4000',
      }),
      expect.objectContaining({ order: 'hand-out', income_expense: 'income', amount: '10000' }),
    ]);
    expect(await payoutResults(shop.id)).toEqual(['success', 'banking_error']);
    expect(await returnedJournals(id)).toHaveLength(1);
    expect(await auditRows(id)).toEqual([{ action: 'cobro payouts return', chain: shop.id }]);
    await ledgerClean();

    // Once only: run again, refused and nothing moves.
    await returnedAgainRefused(id);
    expect(await balance(t, shop)).toBe(6_000);
    expect(await returnedJournals(id)).toHaveLength(1);
    expect(await auditRows(id)).toHaveLength(1);
    expect(await payoutResults(shop.id)).toEqual(['success', 'banking_error']);
  });

  it('two returns at once of a payout paid by hand move the money once', async () => {
    const a = await funded(50_000);
    const id = await paidByHand(a, 20_000, 'hand-race');
    await twoReturnsAtOnce(id);
    expect(await balance(t, a)).toBe(50_000);
    expect(await returnedJournals(id)).toHaveLength(1);
    expect(await auditRows(id)).toHaveLength(1);
    await ledgerClean();
  });

  it('refuses a payout paid by a Fintoc transfer: its return is Fintoc’s word', async () => {
    const { shop } = await fintocShop(t, sim, 'Tienda Fintoc Pagada', {
      payouts: { fundMinor: 20_000 },
    });
    const created = (await payout(t, shop, { amount: 5_000, order: 'fintoc-out' })).json();
    const id = created.identifier_payout as string;
    await drainDueWork(t.ctx);
    await fintocPayoutSucceeded(t, sim, shop, id);
    expect((await payoutRead(shop, id)).status).toBe('success');
    const before = await balance(t, shop);
    // `payouts resolve` does not point at `payouts return` for it.
    const resolve = await cobro('payouts', 'resolve', id, '--status', 'banking_error');
    expect(resolve.code).toBe(1);
    expect(resolve.stderr).toBe(`payout ${id} is success and cannot become banking_error\n`);
    const out = await cobro('payouts', 'return', id, '--reason', 'Cuenta cerrada');
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      `payout ${id} was paid by a Fintoc transfer: its return comes from Fintoc (transfer.outbound.returned), not by hand\n`,
    );
    expect(await balance(t, shop)).toBe(before);
    expect(await auditRows(id)).toHaveLength(0);
    expect(await payoutResults(shop.id)).toEqual(['success']);
  });
});

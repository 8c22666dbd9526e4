// Edge amounts through the whole money path, over HTTP: amounts of 1, 2, 3 and the 14-digit maximum, fees of
// nothing, half, all of the gross (a net of 0) and fixed-only, paid plain, through a marketplace (a client at
// 33.33 %) and for an event whose service amount swallows small nets. Every minor unit must end where the ledger
// says, the wallet movements must chain, and nothing may stay stuck in pending settlement or a payable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { approvedVisa, createTransaction, submit } from './helpers.ts';
import { createClient, createMembership } from '../marketplace/helpers.ts';
import {
  computeFeeMinor,
  setFeeRule,
  type FeeRule,
} from '../../../src/modules/transactions/fees.ts';
import { ledgerCodes, SYSTEM_OWNER } from '../../../src/platform/ledger/codes.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const amounts = [1, 2, 3, 99_999_999_999_999];
const rules: FeeRule[] = [
  { percentBp: 0, fixedMinor: 0n },
  { percentBp: 5_000, fixedMinor: 0n },
  { percentBp: 10_000, fixedMinor: 0n },
  { percentBp: 295, fixedMinor: 10n },
];
const system = (code: string) =>
  readBalance(t.ctx.db, { owner: SYSTEM_OWNER, code, currency: 'CLP' });

describe("edge amounts and fees from payment to the payees' banks", () => {
  for (const rule of rules) {
    it(`fee ${rule.percentBp} bp + ${rule.fixedMinor}: every unit accounted for`, async () => {
      const a = await t.createAccount();
      await setFeeRule(t.ctx.db, a.id, 1, rule, t.clock.now());
      const membership = await createMembership(t, a, '0', [
        [await createClient(t, a), '33.33'],
        [await createClient(t, a, { email: 'otro@example.com' }), '66.67'],
      ]);
      const event = {
        event: 'ev',
        name: 'Evento',
        date_event: '2026-03-20',
        date_closing_sales: '2026-03-19 23:59:00',
        date_payment: '2026-03-22',
        service_sale: 2,
        affiliation: [
          ['a@example.com', 0.01],
          ['b@example.com', '99.99'],
        ],
      };
      expect(
        (await t.call(a, { method: 'POST', url: '/api/event', body: event })).json().status,
      ).toBe('success');
      const feesBefore = await system(ledgerCodes.serviceFees);
      const bankBefore = await system(ledgerCodes.bankClearing);
      let grossMinor = 0n;
      let feeMinor = 0n;
      for (const amount of amounts) {
        for (const [name, extra] of [
          ['plain', {}],
          ['ma', { marketplace: membership.token }],
          ['ev', { event: 'ev' }],
        ] as const) {
          const created = await createTransaction(t, a, {
            amount,
            order: `${name}-${amount}`,
            ...extra,
          });
          expect((await submit(t, created.url, 1, approvedVisa)).statusCode).toBe(200);
          grossMinor += BigInt(amount);
          feeMinor += computeFeeMinor(BigInt(amount), rule);
        }
      }
      const advance = (days: number) =>
        t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { days } });
      expect((await advance(30)).statusCode).toBe(200);
      expect((await advance(3)).statusCode).toBe(200);

      expect((await system(ledgerCodes.serviceFees)) - feesBefore).toBe(feeMinor);
      for (const code of [ledgerCodes.pendingSettlement, ledgerCodes.walletReserved]) {
        expect(await readBalance(t.ctx.db, { owner: a.id, code, currency: 'CLP' })).toBe(0n);
      }
      const payables = await t.ctx.db
        .selectFrom('ledger_accounts')
        .select(['owner', 'code', 'balance_minor'])
        .where('code', 'in', [ledgerCodes.clientPayable, ledgerCodes.beneficiaryPayable])
        .where('balance_minor', '!=', 0n)
        .execute();
      expect(payables).toEqual([]);
      const walletMinor = await readBalance(t.ctx.db, {
        owner: a.id,
        code: ledgerCodes.walletAvailable,
        currency: 'CLP',
      });
      // The net went to the merchant's wallet or, for clients and beneficiaries, out through bank clearing.
      expect(walletMinor + ((await system(ledgerCodes.bankClearing)) - bankBefore)).toBe(
        grossMinor - feeMinor,
      );

      const movements = await t.ctx.db
        .selectFrom('wallet_movements')
        .select(['amount_minor', 'balance_after_minor', 'income_expense'])
        .where('account_id', '=', a.id)
        .orderBy('seq')
        .execute();
      let running = 0n;
      for (const m of movements) {
        expect(m.amount_minor > 0n).toBe(true);
        running += m.income_expense === 'income' ? m.amount_minor : -m.amount_minor;
        expect(m.balance_after_minor).toBe(running);
      }
      expect(running).toBe(walletMinor);
      const wallet = await t.call(a, { method: 'GET', url: '/api/wallet', sign: true });
      expect(wallet.statusCode).toBe(200);
      expect(BigInt(wallet.json().amount_available)).toBe(walletMinor);
      expect((await t.call(a, { method: 'GET', url: '/api/event/ev' })).statusCode).toBe(200);
      expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
    });
  }
});

// Property: whatever sequence of credits, payouts, operator resolutions and clock moves runs, no money is
// created or lost: the ledger verifies, and available + reserved + paid out equals what was credited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { creditWallet } from '../../../src/modules/wallet/wallet-credit.ts';
import { createPayout } from '../../../src/modules/wallet/payout-create.ts';
import {
  resolvePayout,
  operatorTargets,
} from '../../../src/modules/wallet/payout-operator-resolve.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { readBalance } from '../../../src/platform/ledger/post.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const operation = fc.oneof(
  fc.record({ op: fc.constant('credit' as const), amount: fc.integer({ min: 1, max: 5000 }) }),
  fc.record({
    op: fc.constant('payout' as const),
    amount: fc.constantFrom(1000, 1500, 2000, 2500, 777, 4321),
    order: fc.integer({ min: 0, max: 6 }),
  }),
  fc.record({
    op: fc.constant('resolve' as const),
    pick: fc.nat(),
    to: fc.constantFrom(...operatorTargets),
  }),
  fc.record({ op: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 90 }) }),
);

describe('wallet money is conserved', () => {
  it('holds for random operation sequences', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), async (ops) => {
        const a = await t.createAccount();
        const payoutIds: string[] = [];
        let creditedMinor = 0n;
        for (const o of ops) {
          if (o.op === 'credit') {
            await creditWallet(t.ctx, {
              accountId: a.id,
              currency: 'CLP',
              amountMinor: BigInt(o.amount),
              reason: 'p',
              kind: 'adjustment',
            });
            creditedMinor += BigInt(o.amount);
          } else if (o.op === 'payout') {
            const out = await createPayout(t.ctx, {
              kind: 'payout',
              accountId: a.id,
              order: `o${o.order}`,
              orderExt: null,
              subject: 's',
              currency: 'CLP',
              amountMinor: BigInt(o.amount),
              urlNotify: null,
              additionalParameters: null,
              requestHash: `h${o.amount}`,
              destination: {
                email: 'x@y.cl',
                phone: '',
                accountbankName: 'n',
                accountbankRut: '1',
                accountbankSbif: '0001',
                accountbankType: '1',
                accountbankNum: '1',
              },
            });
            if (out.ok && !out.replayed) payoutIds.push(out.payoutId);
          } else if (o.op === 'resolve') {
            const id = payoutIds[o.pick % Math.max(1, payoutIds.length)];
            if (id !== undefined) await resolvePayout(t.ctx, id, o.to, null);
          } else {
            await t.ctx.accountClock.advance(a.id, o.minutes * 60_000, t.ctx.db);
            await drainDueWork(t.ctx, a.id);
          }
        }
        const key = (code: string) => ({ owner: a.id, code, currency: 'CLP' });
        const available = await readBalance(t.ctx.db, key('wallet_available'));
        const reserved = await readBalance(t.ctx.db, key('wallet_reserved'));
        const paid = await t.ctx.db
          .selectFrom('payouts')
          .select('amount_minor')
          .where('account_id', '=', a.id)
          .where('status', '=', 'success')
          .execute();
        const open = await t.ctx.db
          .selectFrom('payouts')
          .select('amount_minor')
          .where('account_id', '=', a.id)
          .where('status', 'in', ['pending', 'processing'])
          .execute();
        const sum = (rows: readonly { amount_minor: bigint }[]) =>
          rows.reduce((s, r) => s + BigInt(r.amount_minor), 0n);
        expect(available >= 0n).toBe(true);
        expect(reserved).toBe(sum(open));
        expect(available + reserved + sum(paid)).toBe(creditedMinor);
        expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});

// Transactions reaches its extensions only through the PaymentExtension port handed over as ctx.paymentExtensions:
// a new extension is one object in one folder. Proven here with an extension the code base does not have.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import type { AppContext } from '../../../src/platform/context.ts';
import { ruleFailure } from '../../../src/platform/errors/errors.ts';
import { journalKinds, ledgerCodes } from '../../../src/platform/ledger/ledger.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import type { PaymentExtension } from '../../../src/modules/transactions/extension.ts';
import { createTransaction } from '../../../src/modules/transactions/transaction-create.ts';
import { runSettlements } from '../../../src/modules/transactions/settlement.ts';
import { paymentExtensions } from '../../../src/modules/payment-extensions.ts';
import { submit, approvedVisa } from './helpers.ts';
import { registerNullification } from '../../../src/modules/refunds/nullify.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const settled: string[] = [];
/** A tip jar: keeps a tenth of the net for a partner named in `marketplace`. */
const tipJar: PaymentExtension = {
  name: 'tip-jar',
  field: 'marketplace',
  owns: (row) => row.marketplace?.startsWith('tip:') === true,
  async prepare(_ctx, input) {
    if (!input.value.startsWith('tip:')) return { ok: false, errors: { marketplace: 'invalid' } };
    if (input.value === 'tip:closed')
      return {
        ok: false,
        failure: ruleFailure('marketplace_suspended', { membershipId: 'closed' }),
      };
    return { ok: true, attach: async () => ({ ok: true, columns: { marketplace: input.value } }) };
  },
  async recordSuccess() {},
  async settle(ctx, tx, row, netMinor, at) {
    settled.push(row.id);
    const tipMinor = netMinor / 10n;
    if (tipMinor > 0n) {
      await ctx.ledger.post(tx, {
        kind: journalKinds.marketplaceSplit,
        reference: row.id,
        at,
        postings: [
          {
            owner: row.account_id,
            code: ledgerCodes.pendingSettlement,
            currency: row.currency,
            amountMinor: -tipMinor,
          },
          {
            owner: row.marketplace!.slice(4),
            code: ledgerCodes.clientPayable,
            currency: row.currency,
            amountMinor: tipMinor,
          },
        ],
      });
    }
    return { merchantMinor: netMinor - tipMinor };
  },
};

const input = (extra: Record<string, string>) => ({
  email: 'payer@example.com',
  order: 'o-1',
  subject: 'Tip',
  amount: 10_000,
  ...extra,
});

describe('the PaymentExtension port', () => {
  it('creates, refuses and settles through an extension transactions has never heard of', async () => {
    const ctx: AppContext = { ...t.ctx, paymentExtensions: [tipJar] };
    const a = await t.createAccount();
    await expect(createTransaction(ctx, a.id, input({ marketplace: 'nope' }))).rejects.toThrow(
      'marketplace:invalid',
    );
    expect(await createTransaction(ctx, a.id, input({ marketplace: 'tip:closed' }))).toMatchObject({
      status: 'failed',
      type: 'marketplace_suspended',
    });
    const created = await createTransaction(ctx, a.id, input({ marketplace: 'tip:partner1' }));
    if (!('url' in created)) throw new Error('not created');
    expect((await submit(t, created.url, 1, approvedVisa)).statusCode).toBe(200);
    t.clock.advanceMs(1000);
    expect(await runSettlements(ctx, { limit: 10, accountId: a.id })).toBe(1);
    expect(settled).toEqual([created.id]);
    expect(
      await t.ctx.ledger.balance(t.ctx.db, {
        owner: 'partner1',
        code: ledgerCodes.clientPayable,
        currency: 'CLP',
      }),
    ).toBe(1_000n);
    expect(
      await t.ctx.ledger.balance(t.ctx.db, {
        owner: a.id,
        code: ledgerCodes.walletAvailable,
        currency: 'CLP',
      }),
    ).toBe(9_000n);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
    // An extension without `reverse` cannot have its sales refunded: refused, nothing written.
    const refused = await registerNullification(ctx, a.id, {
      id: created.id,
      amount: 1000,
      subject: 'Devolución',
    });
    expect(refused).toMatchObject({
      ok: false,
      failure: {
        type: 'refund_not_supported',
        message_error: expect.stringContaining('a tip-jar payment is not refundable yet'),
      },
    });
    expect(
      await t.ctx.db
        .selectFrom('nullifications')
        .select('id')
        .where('transaction_id', '=', created.id)
        .execute(),
    ).toEqual([]);
  });

  it('the composition lists marketplace then events, one field each', () => {
    expect(paymentExtensions.map((e) => [e.name, e.field])).toEqual([
      ['marketplace', 'marketplace'],
      ['event', 'event'],
    ]);
  });

  it('transactions imports no extension, and no module imports the ledger internals', () => {
    const root = path.resolve(import.meta.dirname, '../../../src/modules');
    const files = fs
      .readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'));
    for (const file of files) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      if (file.startsWith(`transactions${path.sep}`)) {
        expect(
          imports.filter((i) => /\/(marketplace|events|payment-extensions)(\/|\.ts)/.test(i)),
          file,
        ).toEqual([]);
      }
      expect(
        imports.filter((i) => /platform\/ledger\/(post|codes|kinds|funds|sql-ledger)\.ts$/.test(i)),
        file,
      ).toEqual([]);
    }
  });
});

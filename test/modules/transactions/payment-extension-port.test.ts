// Transactions reaches its extensions only through the PaymentExtension port handed over as ctx.paymentExtensions:
// a new extension is one object in one folder, and no column of the core's table (decision 550, issue 29 g).
// Proven here with an extension the code base does not have, and that no column is named after.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { ruleFailure } from '../../../src/platform/errors/errors.ts';
import { journalKinds, ledgerCodes } from '../../../src/platform/ledger/ledger.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import type { PaymentExtension } from '../../../src/modules/transactions/extension.ts';
import { createTransaction } from '../../../src/modules/transactions/transaction-create.ts';
import { runSettlements } from '../../../src/modules/transactions/settlement.ts';
import { paymentExtensions } from '../../../src/modules/payment-extensions.ts';
import { submit, approvedVisa } from './helpers.ts';
import { registerNullification } from '../../../src/modules/refunds/nullify.ts';

const settled: string[] = [];
/**
 * A tip jar: keeps a tenth of the net for a partner named in the create's `marketplace` field (the only fields a
 * create has are the seed's). Nothing in the schema is named after it: the row carries its name and its partner.
 */
const tipJar: PaymentExtension = {
  name: 'tip-jar',
  field: 'marketplace',
  async prepare(_ctx, input) {
    if (!input.value.startsWith('tip:')) return { ok: false, errors: { marketplace: 'invalid' } };
    if (input.value === 'tip:closed')
      return {
        ok: false,
        failure: ruleFailure('marketplace_suspended', { membershipId: 'closed' }),
      };
    return { ok: true, attach: async () => ({ ok: true, ref: input.value.slice(4) }) };
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
            owner: row.extension_ref!,
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

let t: TestApp;
beforeAll(async () => {
  // The whole app composes the tip jar alone: the checkout's payment and the settlement find it by the row's name.
  t = await startTestApp({ paymentExtensions: [tipJar] });
});
afterAll(async () => {
  await t.close();
});

const input = (extra: Record<string, string>) => ({
  email: 'payer@example.com',
  order: 'o-1',
  subject: 'Tip',
  amount: 10_000,
  ...extra,
});

describe('the PaymentExtension port', () => {
  it('creates, refuses and settles through an extension transactions has never heard of', async () => {
    const ctx = t.ctx;
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
    // The core wrote the extension's name and reference in its own two columns, knowing neither.
    expect(
      await t.ctx.db
        .selectFrom('transactions')
        .select(['extension', 'extension_ref'])
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ extension: 'tip-jar', extension_ref: 'partner1' });
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

  it('the transactions table names no extension: no column after any extension, its field or its reference', async () => {
    const columns = await t.ctx.db
      .selectFrom('information_schema.columns' as never)
      .select('column_name' as never)
      .where('table_name' as never, '=', 'transactions' as never)
      .execute();
    const names = columns.map((c) => (c as { column_name: string }).column_name);
    expect(names).toContain('extension_ref');
    const named = [...paymentExtensions, tipJar].flatMap((e) => [e.name, e.field]);
    expect(names.filter((c) => named.some((n) => c.includes(n)) || /membership/.test(c))).toEqual(
      [],
    );
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

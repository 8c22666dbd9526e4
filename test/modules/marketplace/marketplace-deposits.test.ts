// Clients' deposits run on the account's clock and are dated on it: after the settlement that liquidated them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { approvedVisa, createTransaction, submit } from '../transactions/helpers.ts';
import { createClient, createMembership } from './helpers.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('marketplace client deposits on the sandbox clock', () => {
  it('dates the deposit journal and the share at the account time the deposit ran', async () => {
    const a = await t.createAccount();
    const membership = await createMembership(t, a, '70', [[await createClient(t, a), '30']]);
    const created = await createTransaction(t, a, {
      marketplace: membership.token,
      amount: 10_000,
    });
    expect((await submit(t, created.url, 1, approvedVisa)).statusCode).toBe(200);
    const advance = (days: number) =>
      t.call(a, { method: 'POST', url: '/api/sandbox/clock/advance', body: { days } });
    expect((await advance(30)).json().processed['transaction-settlement']).toBe(1);
    const settledAt = (await t.ctx.accountClock.now(a.id, t.ctx.db)).getTime();
    expect((await advance(1)).json().processed['marketplace-client-deposits']).toBe(1);
    const depositAt = (await t.ctx.accountClock.now(a.id, t.ctx.db)).getTime();
    const journals = await t.ctx.db
      .selectFrom('journal_entries')
      .select(['kind', 'created_at'])
      .where('kind', 'in', ['marketplace_split', 'marketplace_client_deposit'])
      .execute();
    const at = (kind: string) => journals.find((j) => j.kind === kind)!.created_at.getTime();
    expect(at('marketplace_split')).toBe(settledAt);
    expect(at('marketplace_client_deposit')).toBe(depositAt);
    const share = await t.ctx.db
      .selectFrom('ma_payment_shares')
      .select(['status', 'amount_minor', 'deposit_started_at'])
      .executeTakeFirstOrThrow();
    expect(share).toMatchObject({ status: 'pending for deposit', amount_minor: 3_000n });
    expect(share.deposit_started_at?.getTime()).toBe(depositAt);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });
});

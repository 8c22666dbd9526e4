// Shared steps of the dispute tests: the sandbox's acquirer, the merchant's answers, the ledger's verdict.
import { expect } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { setAccountUrls } from '../../../src/modules/accounts/callback-urls.ts';

export async function openDispute(
  t: TestApp,
  account: TestAccount,
  body: { transaction_id: string; amount: number; reason?: string },
) {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/sandbox/disputes',
    body: { reason: 'fraudulent', ...body },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function disputeCall(
  t: TestApp,
  account: TestAccount,
  id: string,
  action: 'evidence' | 'accept' | 'resolve',
  body?: unknown,
) {
  const url =
    action === 'resolve' ? `/api/sandbox/disputes/${id}/resolve` : `/api/disputes/${id}/${action}`;
  // The merchant's answers need Sign (decision 740); the sandbox's resolution takes the token alone.
  const res = await t.call(account, {
    method: 'POST',
    url,
    body: body ?? {},
    sign: action !== 'resolve',
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function expectLedgerClean(t: TestApp): Promise<void> {
  const verified = await verifyLedger(t.ctx.db);
  expect(verified).toMatchObject({ ok: true });
}

export async function withNotifyUrl(t: TestApp, account: TestAccount): Promise<void> {
  const set = await setAccountUrls(t.ctx, account.id, { notify: 'http://127.0.0.1:9/disputes' });
  expect(set.ok).toBe(true);
}

export async function disputeCallbacks(t: TestApp, accountId: string) {
  const rows = await t.ctx.db
    .selectFrom('notifications')
    .select(['event_type', 'payload'])
    .where('account_id', '=', accountId)
    .where('event_type', 'like', 'dispute.%')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    type: r.event_type,
    status: (r.payload as { dispute: { status: string } }).dispute.status,
  }));
}

/** How many audit rows the operator's commands wrote in the account's chain: a refused or repeated command adds none. */
export async function operatorAuditRows(t: TestApp, accountId: string): Promise<number> {
  const rows = await t.ctx.db
    .selectFrom('audit_log')
    .select('id')
    .where('chain', '=', accountId)
    .where('actor_kind', '=', 'operator')
    .execute();
  return rows.length;
}

// Decision 810: docs/payments.md §4 suggests checking a callback by fetching the transaction and comparing `status`,
// but the callback says `failed` where GET /api/transaction says `rejected` (reference facts §1.4: the reference's
// SDK maps one to the other; the seed keeps both wire values). The guide now gives the mapping; this holds it to
// what the service sends and answers.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { repoRoot } from '../support/cli.ts';
import { declineByCard, payByCard } from '../modules/transactions/helpers.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

/** The guide's table: each callback status and the transaction status it stands for (the first code given). */
function documentedMapping(): Map<string, string> {
  const guide = fs.readFileSync(path.join(repoRoot, 'docs', 'payments.md'), 'utf8');
  const mapping = new Map<string, string>();
  for (const m of guide.matchAll(/^\s*\| `(\w+)` \| `([\w ]+)`[^|]*\|$/gm))
    mapping.set(m[1]!, m[2]!);
  return mapping;
}

/** What the service sent to urlnotify for the transaction, and what GET /api/transaction/{id} answers. */
async function bothStatuses(id: string): Promise<{ callback: string; transaction: string }> {
  const row = await t.ctx.db
    .selectFrom('transactions')
    .select('payment_key')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const [callback] = await t.ctx.db
    .selectFrom('notifications')
    .select('payload')
    .where(sql<boolean>`payload->>'payment_key' = ${row.payment_key}`)
    .execute();
  const got = await t.call(account, { method: 'GET', url: `/api/transaction/${id}` });
  return {
    callback: String((callback?.payload as { status?: unknown } | undefined)?.status),
    transaction: String(got.json().status),
  };
}

describe('docs/payments.md §4: comparing a callback with GET /api/transaction', () => {
  it("maps the callback's status to the transaction's as the service sends and answers them", async () => {
    const mapping = documentedMapping();
    const paid = await payByCard(t, account, { urlnotify: 'https://shop.example/n' });
    const declined = await declineByCard(t, account, { urlnotify: 'https://shop.example/n' });
    const success = await bothStatuses(paid.created.id);
    const rejection = await bothStatuses(declined.created.id);
    expect(success).toEqual({ callback: 'success', transaction: 'success' });
    expect(rejection).toEqual({ callback: 'failed', transaction: 'rejected' });
    for (const pair of [success, rejection])
      expect(mapping.get(pair.callback), `docs/payments.md maps \`${pair.callback}\``).toBe(
        pair.transaction,
      );
  });
});

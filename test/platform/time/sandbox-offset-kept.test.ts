// Decision 260: a payout (and, decision 250, a create) stamps its rows with the account's sandbox "now" from an offset kept in memory, so it reads
// nothing before the wallet's lock. The kept offset must never outlive a move of the clock: one through the API is
// seen by the very next payout, and one made elsewhere (another process, the CLI, plain SQL) once its notification
// arrives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { fund, payout } from '../../modules/wallet/wallet-helpers.ts';
import { sandboxClockChangesChannel } from '../../../src/platform/time/sandbox-clock.ts';

const dayMs = 24 * 60 * 60 * 1000;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function payoutCreatedAt(accountId: string, order: string): Promise<Date> {
  const row = await t.ctx.db
    .selectFrom('payouts')
    .select('created_at')
    .where('account_id', '=', accountId)
    .where('order', '=', order)
    .executeTakeFirstOrThrow();
  return new Date(row.created_at);
}

/** A create's stamp (decision 250: it binds the account's "now" from the kept offset too). */
async function createCreatedAt(
  account: Parameters<TestApp['call']>[0],
  order: string,
): Promise<number> {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/transaction',
    body: { email: 'payer@example.com', order, subject: 'S', amount: 1000 },
  });
  expect(res.statusCode, res.body).toBe(200);
  const row = await t.ctx.db
    .selectFrom('transactions')
    .select('created_at')
    .where('id', '=', res.json().id)
    .executeTakeFirstOrThrow();
  return new Date(row.created_at).getTime();
}

/** The next notification on the sandbox clocks' channel, as every process's change feed receives it. */
function nextClockNotification(): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    t.ctx.changes!.on(sandboxClockChangesChannel, () => {
      if (!done) {
        done = true;
        resolve();
      }
    });
  });
}

describe('the sandbox offset a payout stamps its rows with', () => {
  it('follows a move through the API at once, and one made elsewhere once notified', async () => {
    expect(t.ctx.changes).toBeDefined();
    const a = await t.createAccount();
    await fund(t, a, 100_000);
    const now = t.clock.now().getTime();

    expect((await payout(t, a, { order: 'before' })).json().status).toBe('success');
    expect((await payoutCreatedAt(a.id, 'before')).getTime()).toBe(now);
    expect(await createCreatedAt(a, 'before')).toBe(now);
    expect((await t.ctx.accountClock.now(a.id, t.ctx.db, { kept: true })).getTime()).toBe(now);

    const advanced = await t.call(a, {
      method: 'POST',
      url: '/api/sandbox/clock/advance',
      body: { days: 2 },
    });
    expect(advanced.statusCode).toBe(200);
    expect((await payout(t, a, { order: 'after-api' })).json().status).toBe('success');
    expect((await payoutCreatedAt(a.id, 'after-api')).getTime()).toBe(now + 2 * dayMs);
    expect(await createCreatedAt(a, 'after-api')).toBe(now + 2 * dayMs);

    // Moved behind the process's back: the trigger's notification drops what it kept.
    const notified = nextClockNotification();
    await sql`UPDATE sandbox_clocks SET offset_ms = offset_ms + ${5 * dayMs} WHERE account_id = ${a.id}`.execute(
      t.ctx.db,
    );
    await notified;
    expect((await payout(t, a, { order: 'after-sql' })).json().status).toBe('success');
    expect((await payoutCreatedAt(a.id, 'after-sql')).getTime()).toBe(now + 7 * dayMs);
    expect(await createCreatedAt(a, 'after-sql')).toBe(now + 7 * dayMs);

    // A clock row removed (an operator's reset) notifies too.
    const reset = nextClockNotification();
    await sql`DELETE FROM sandbox_clocks WHERE account_id = ${a.id}`.execute(t.ctx.db);
    await reset;
    expect((await payout(t, a, { order: 'after-reset' })).json().status).toBe('success');
    expect((await payoutCreatedAt(a.id, 'after-reset')).getTime()).toBe(now);
    expect(await createCreatedAt(a, 'after-reset')).toBe(now);
  });
});

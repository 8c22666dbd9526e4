// Authenticated accounts kept in memory (decision 190): a kept token costs no query, and any change to an account,
// from this process or another connection, stops what was kept. On PostgreSQL also: a dropped listening
// connection stops serving kept accounts until it is back.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { publicTokenHash } from '../../../src/platform/auth/tokens.ts';
import { rotateAccount } from '../../../src/modules/accounts/service.ts';
import { setStrictSigning } from '../../../src/modules/accounts/strict-signing.ts';
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import type { TestDatabaseHandle } from '../../support/database.ts';
import { StatementCounter } from '../../support/statement-counter.ts';

const counter = new StatementCounter();
let t: TestApp;
/** Another connection to the same database: another process's, on PostgreSQL. */
let other: DatabaseHandle | null = null;
beforeAll(async () => {
  t = await startTestApp({ dbPlugin: counter });
  const url = (t.handle as TestDatabaseHandle).url;
  if (url !== undefined) other = await openDatabase({ engine: 'postgres', url, poolSizeMax: 1 });
});
afterAll(async () => {
  await other?.close();
  await t.close();
});

const accountStatus = (account: TestAccount) =>
  t.app
    .inject({
      method: 'GET',
      url: '/api/account',
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${account.publicToken}`,
        sign: computeSign(account.privateToken, '/api/account', {}),
      },
    })
    .then((r) => r.statusCode);

/** NOTIFY reaches a PostgreSQL listener a moment after the commit; PGlite delivers it within the commit. */
async function eventually(expected: number, account: TestAccount): Promise<void> {
  const deadline = Date.now() + 5_000;
  let status = await accountStatus(account);
  while (status !== expected && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    status = await accountStatus(account);
  }
  expect(status).toBe(expected);
}

async function feedLive(): Promise<void> {
  for (const deadline = Date.now() + 10_000; !t.handle.changes.live() && Date.now() < deadline; )
    await new Promise((r) => setTimeout(r, 10));
  expect(t.handle.changes.live()).toBe(true);
}

/** The queries of a request whose token was just read, then of the same request with the token kept. */
async function queriesReadThenKept(account: TestAccount): Promise<[number, number]> {
  counter.count = 0;
  expect(await accountStatus(account)).toBe(200);
  const read = counter.count;
  counter.count = 0;
  expect(await accountStatus(account)).toBe(200);
  return [read, counter.count];
}

describe('authenticated accounts kept in memory', () => {
  it('authenticates a kept token with no query of its own', async () => {
    await eventually(200, await t.createAccount('Starts the feed'));
    await feedLive();
    const [read, kept] = await queriesReadThenKept(await t.createAccount('Kept'));
    expect(kept).toBe(read - 1);
  });

  it('refuses a kept token once the account is rotated, and takes the new one', async () => {
    const account = await t.createAccount('Rotated');
    await eventually(200, account);
    await accountStatus(account);
    const rotated = await rotateAccount(t.ctx, account.id, 'tokens');
    if (!rotated.ok) throw new Error(rotated.error);
    // A change this process made is seen by its very next request, before any notification arrives.
    expect(await accountStatus(account)).toBe(401);
    await eventually(200, {
      ...account,
      publicToken: rotated.value.publicToken,
      privateToken: rotated.value.privateToken,
    });
  });

  it('refuses a kept token once another connection gives the account a new one with plain SQL, and takes the new one', async () => {
    // Accounts are kept by the token as sent, not by its hash (decision 320): the row's change must still drop it.
    const account = await t.createAccount('Rotated elsewhere');
    await eventually(200, account);
    await accountStatus(account);
    const fresh = 'f'.repeat(32);
    await sql`UPDATE accounts SET public_token_hash = ${publicTokenHash(fresh)} WHERE id = ${account.id}`.execute(
      (other ?? t.handle).db,
    );
    await eventually(401, account);
    await eventually(200, { ...account, publicToken: fresh });
    expect(await accountStatus(account)).toBe(401);
  });

  it('asks for the Cobro-Signature on the very next request once this process turns strict signing on', async () => {
    const account = await t.createAccount('Strict here');
    await eventually(200, account);
    await accountStatus(account);
    const on = await setStrictSigning(t.ctx, account.id, true);
    expect(on.ok).toBe(true);
    expect(await accountStatus(account)).toBe(401);
  });

  it('refuses a kept token once another connection disables the account with plain SQL', async () => {
    const account = await t.createAccount('Disabled elsewhere');
    await eventually(200, account);
    await accountStatus(account);
    await sql`UPDATE accounts SET status = 'disabled' WHERE id = ${account.id}`.execute(
      (other ?? t.handle).db,
    );
    await eventually(401, account);
  });

  it("keeps an account's name for the payer's pages with no query, and shows a rename made elsewhere", async () => {
    const account = await t.createAccount('Named before');
    await feedLive();
    expect(await t.ctx.accounts.nameOf(account.id)).toBe('Named before');
    counter.count = 0;
    expect(await t.ctx.accounts.nameOf(account.id)).toBe('Named before');
    expect(counter.count).toBe(0);
    await sql`UPDATE accounts SET name = 'Named after' WHERE id = ${account.id}`.execute(
      (other ?? t.handle).db,
    );
    const deadline = Date.now() + 5_000;
    let name = await t.ctx.accounts.nameOf(account.id);
    while (name !== 'Named after' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
      name = await t.ctx.accounts.nameOf(account.id);
    }
    expect(name).toBe('Named after');
    expect(await t.ctx.accounts.nameOf('acc_none')).toBeNull();
  });

  it('asks for the Cobro-Signature at once when strict signing is turned on elsewhere', async () => {
    const account = await t.createAccount('Strict elsewhere');
    await eventually(200, account);
    await accountStatus(account);
    await sql`UPDATE accounts SET strict_signing = true WHERE id = ${account.id}`.execute(
      (other ?? t.handle).db,
    );
    await eventually(401, account);
  });

  it.runIf(Boolean(process.env.DATABASE_URL))(
    'serves nothing kept while its listening connection is down, and keeps again once it is back',
    async () => {
      const account = await t.createAccount('Gap');
      await eventually(200, account);
      await accountStatus(account);
      const db = other!.db;
      const listener = async () =>
        (
          await sql<{ pid: number }>`
      SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %'`.execute(
            db,
          )
        ).rows;
      const [first] = await listener();
      expect(first).toBeDefined();
      await sql`SELECT pg_terminate_backend(${first!.pid})`.execute(db);
      const feed = t.handle.changes;
      for (const deadline = Date.now() + 5_000; feed.live() && Date.now() < deadline; )
        await new Promise((r) => setTimeout(r, 5));
      // While the feed is down this change notifies no one in this process: only not serving kept copies refuses it.
      await sql`UPDATE accounts SET status = 'disabled' WHERE id = ${account.id}`.execute(db);
      expect(await accountStatus(account)).toBe(401);
      await sql`UPDATE accounts SET status = 'active' WHERE id = ${account.id}`.execute(db);
      for (const deadline = Date.now() + 10_000; !feed.live() && Date.now() < deadline; )
        await new Promise((r) => setTimeout(r, 20));
      expect(feed.live()).toBe(true);
      const [read, kept] = await queriesReadThenKept(account);
      expect(kept).toBe(read - 1);
    },
  );
});

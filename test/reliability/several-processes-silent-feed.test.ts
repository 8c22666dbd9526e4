// Decision 950: two processes on one PostgreSQL, the second's LISTEN connection dropped without a word, as a NAT or
// a load balancer forgets an idle flow, or a host vanishes in a failover (decision 685): no RST, no FIN, the socket
// still open. The feed sends nothing on that connection, so without a check of its own it stays "live" for the
// kernel's keep-alive (two hours), no notification arrives, and what it keeps is served until it ages out (60 s):
// a token rotated in the first process still opened the account in the second. The feed now asks its connection
// a question every few seconds and counts a late answer as a lost connection: what it kept goes, and it listens
// again on a new connection.
import crypto from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { rotateAccount } from '../../src/modules/accounts/service.ts';
import { postgresChangeFeed } from '../../src/platform/db/change-feed.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { limits } from '../../src/limits/index.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import type { TestDatabaseHandle } from '../support/database.ts';
import { freePort } from '../support/net.ts';
import { tcpRelay } from '../support/tcp-relay.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

async function until(what: string, ok: () => Promise<boolean> | boolean, withinMs: number) {
  const deadline = Date.now() + withinMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(onPostgres)('a second process whose LISTEN connection was dropped silently', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  it('stops opening the account with tokens the first process rotated, and listens again', {
    timeout: 90_000,
  }, async () => {
    // One deployment: both processes share the secret key.
    const env = { COBRO_SECRET_KEY: crypto.randomBytes(32).toString('hex') };
    const a: TestApp = await startTestApp({ env });
    cleanups.push(() => a.close());
    const url = (a.handle as TestDatabaseHandle).url!;
    const target = new URL(url);
    const port = await freePort();
    const relay = tcpRelay(port, { host: target.hostname, port: Number(target.port || 5432) });
    await relay.listen();
    cleanups.push(() => relay.close());
    // The second process: its queries on a pool of its own, its LISTEN connection through the relay.
    const viaRelay = new URL(url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(port);
    const feed = postgresChangeFeed(viaRelay.toString());
    cleanups.push(() => feed.close());
    const own = await openDatabase({ engine: 'postgres', url });
    cleanups.push(() => own.close());
    const b: TestApp = await startTestApp({ env, handle: { ...own, changes: feed } });
    cleanups.push(() => b.close());

    const status = (account: TestAccount) =>
      b.call(account, { method: 'GET', url: '/api/account', sign: true }).then((r) => r.statusCode);
    const account = await a.createAccount('Rotated in the first process');
    expect(await status(account)).toBe(200);
    await until('the feed live', () => feed.live(), 10_000);
    // Read once more with the feed live: the second process keeps the account.
    expect(await status(account)).toBe(200);

    relay.dropEstablished();
    const rotated = await rotateAccount(a.ctx, account.id, 'tokens');
    if (!rotated.ok) throw new Error(rotated.error);
    // Well inside the 60 s a kept account may live (limits.authCacheEntryAgeMsMax): the old tokens stop.
    const withinMs = limits.authCacheEntryAgeMsMax / 2;
    await until(
      'the rotated tokens refused',
      async () => (await status(account)) === 401,
      withinMs,
    );

    // The feed listens again on a new connection (the relay carries new ones), and the new tokens open the account.
    const fresh = {
      ...account,
      publicToken: rotated.value.publicToken,
      privateToken: rotated.value.privateToken,
    };
    await until('the feed live again', () => feed.live(), withinMs);
    expect(await status(fresh)).toBe(200);
  });
});

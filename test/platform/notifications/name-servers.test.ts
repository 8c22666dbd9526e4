// Decision 855: a callback host that must be public is looked up with c-ares (name-servers.ts), bounded by
// limits.deliveryDnsTryMs × deliveryDnsTries and off libuv's thread pool, with decision 800's refusals kept.
import crypto from 'node:crypto';
import dns from 'node:dns';
import type { LookupOptions } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameServerLookup } from '../../../src/platform/notifications/name-servers.ts';
import { guardedLookup } from '../../../src/platform/notifications/ssrf-guard.ts';
import { sendWebhook } from '../../../src/platform/notifications/send.ts';
import { startNameServer, type NameServer } from '../../support/name-server.ts';

/** Whose callbacks these are: a trusted origin's accounts are checked against it (decision 987). */
const anAccount = 'acc0123456789abcdef0';

let answering: NameServer;
let silent: NameServer;

beforeAll(async () => {
  answering = await startNameServer({
    'shop.example.com': ['93.184.216.34', '93.184.216.35'],
    'intranet.example.com': ['93.184.216.36', '10.0.0.5'],
  });
  silent = await startNameServer({}, { silent: true });
});
afterAll(async () => {
  await answering?.close();
  await silent?.close();
});

function resolverAt(server: NameServer, tryMs: number): dns.promises.Resolver {
  const resolver = new dns.promises.Resolver({ timeout: tryMs, tries: 1 });
  resolver.setServers([server.address]);
  return resolver;
}

function lookUp(server: NameServer, host: string, tryMs = 2_000) {
  const lookup = guardedLookup('public', nameServerLookup(resolverAt(server, tryMs)));
  return new Promise<{ error: NodeJS.ErrnoException | null; addresses: unknown }>((resolve) =>
    lookup(host, { all: true } as LookupOptions, (error, addresses) =>
      resolve({ error, addresses }),
    ),
  );
}

describe('a public host asked of the name servers', () => {
  it("answers every A record of the host (its AAAA answer empty), as getaddrinfo's all would", async () => {
    expect(await lookUp(answering, 'shop.example.com')).toEqual({
      error: null,
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '93.184.216.35', family: 4 },
      ],
    });
  });

  it('refuses a host with one private address among its answers, and says an unknown one is not found', async () => {
    const refused = await lookUp(answering, 'intranet.example.com');
    expect(refused.error?.code).toBe('ECALLBACKREFUSED');
    expect(refused.error?.message).toBe(
      'refused: intranet.example.com resolves to 10.0.0.5, a private address',
    );
    expect((await lookUp(answering, 'nowhere.example.com')).error?.code).toBe('ENOTFOUND');
  });

  it('gives up on a silent name server after its tries, without holding the thread pool meanwhile', async () => {
    const before = silent.queries();
    const hung = Array.from({ length: 8 }, (_, i) => lookUp(silent, `h${i}.example.com`, 1_500));
    // Eight lookups wait on the silent server; work on libuv's four threads goes on (getaddrinfo would hold them).
    const scrypts = Array.from(
      { length: 4 },
      (_, i) =>
        new Promise<'done'>((resolve, reject) =>
          crypto.scrypt(`p${i}`, 'salt', 16, { N: 1024 }, (e) => (e ? reject(e) : resolve('done'))),
        ),
    );
    const first = await Promise.race([Promise.all(scrypts), Promise.all(hung)]);
    expect(first).toEqual(['done', 'done', 'done', 'done']);
    const ended = await Promise.all(hung);
    expect(ended.map((r) => r.error?.code)).toEqual(Array(8).fill('ETIMEOUT'));
    expect(silent.queries() - before).toBeGreaterThanOrEqual(8);
  });

  it('is what a production callback to a named host uses (a c-ares error, not getaddrinfo)', async () => {
    const sent = await sendWebhook({
      url: 'https://cobro-test.invalid/callback',
      headers: {},
      body: '{}',
      policy: { mode: 'production', callbackTrustedOrigins: new Map() },
      accountId: anAccount,
    });
    expect(sent.statusCode).toBeNull();
    expect(sent.error).toMatch(/^query(A|AAAA) E[A-Z]+ cobro-test\.invalid$/);
  });
});

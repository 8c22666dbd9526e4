import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type dns from 'node:dns';
import {
  addressRefusal,
  checkCallbackUrl,
  classifyAddress,
  guardedLookup,
  parseIpv4Literal,
  type BaseLookup,
  type CallbackPolicy,
} from '../../../src/platform/notifications/ssrf-guard.ts';
import { sendWebhook } from '../../../src/platform/notifications/send.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';

/** Whose callbacks these are: a trusted origin's accounts are checked against it (decision 987). */
const anAccount = 'acc0123456789abcdef0';

/** Stands in for DNS: each name resolves to the addresses given, so no real resolver or network is involved. */
function fakeDns(table: Record<string, string[]>): BaseLookup {
  return (hostname, _options, callback) => {
    const found = table[hostname];
    if (found === undefined) {
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      error.code = 'ENOTFOUND';
      return callback(error, []);
    }
    callback(
      null,
      found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
}

const none: CallbackPolicy['callbackTrustedOrigins'] = new Map();
const sandbox = { mode: 'sandbox', callbackTrustedOrigins: none } as const;
const production = { mode: 'production', callbackTrustedOrigins: none } as const;
const policies = { sandbox, production } as const;

function lookupAll(
  lookup: ReturnType<typeof guardedLookup>,
  host: string,
): Promise<{ error: NodeJS.ErrnoException | null; addresses: unknown }> {
  return new Promise((resolve) =>
    lookup(host, { all: true } as dns.LookupOptions, (error, addresses) =>
      resolve({ error, addresses }),
    ),
  );
}

describe('parseIpv4Literal', () => {
  it('reads every spelling the C resolver accepts', () => {
    expect(parseIpv4Literal('127.0.0.1')).toBe('127.0.0.1');
    expect(parseIpv4Literal('2130706433')).toBe('127.0.0.1');
    expect(parseIpv4Literal('0177.0.0.1')).toBe('127.0.0.1');
    expect(parseIpv4Literal('0x7f.1')).toBe('127.0.0.1');
    expect(parseIpv4Literal('0x7f000001')).toBe('127.0.0.1');
    expect(parseIpv4Literal('127.1')).toBe('127.0.0.1');
    expect(parseIpv4Literal('10.1')).toBe('10.0.0.1');
    expect(parseIpv4Literal('167772161')).toBe('10.0.0.1');
    expect(parseIpv4Literal('169.254.43518')).toBe('169.254.169.254');
  });

  it('refuses names and out-of-range parts', () => {
    expect(parseIpv4Literal('example.com')).toBeNull();
    expect(parseIpv4Literal('256.0.0.1')).toBeNull();
    expect(parseIpv4Literal('4294967296')).toBeNull();
    expect(parseIpv4Literal('08.0.0.1')).toBeNull();
    expect(parseIpv4Literal('1.2.3.4.5')).toBeNull();
  });
});

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd00::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['64:ff9b::a00:1', 'reserved'],
    ['2002:a00:1::', 'reserved'],
    ['not an address', 'reserved'],
    ['93.184.216.34', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('local reach (sandbox, trusted origins) allows loopback and private but never link-local or reserved', () => {
    expect(addressRefusal('127.0.0.1', 'local')).toBeNull();
    expect(addressRefusal('10.0.0.1', 'local')).toBeNull();
    expect(addressRefusal('169.254.169.254', 'local')).toMatch(/link-local/);
    expect(addressRefusal('0.0.0.0', 'local')).toMatch(/reserved/);
    expect(addressRefusal('127.0.0.1', 'public')).toMatch(/loopback/);
  });
});

describe('checkCallbackUrl', () => {
  it('production refuses plain http and credentials', () => {
    expect(checkCallbackUrl('http://example.com/notify', production, anAccount)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/http URLs/),
    });
    expect(checkCallbackUrl('https://user:pw@example.com/', production, anAccount)).toMatchObject({
      ok: false,
    });
    expect(checkCallbackUrl('ftp://example.com/', sandbox, anAccount)).toMatchObject({ ok: false });
    expect(checkCallbackUrl('not a url', sandbox, anAccount)).toMatchObject({ ok: false });
    expect(checkCallbackUrl('https://example.com/notify', production, anAccount)).toMatchObject({
      ok: true,
    });
    expect(checkCallbackUrl('http://127.0.0.1:8000/notify', sandbox, anAccount)).toMatchObject({
      ok: true,
    });
  });

  it('production lets an operator-trusted origin use http and a local address, and only that exact origin', () => {
    const trusting = {
      mode: 'production',
      callbackTrustedOrigins: new Map([
        ['http://127.0.0.1:8000', 'every account'],
        ['https://erp.internal:8443', 'every account'],
      ] as const),
    } as const;
    expect(checkCallbackUrl('http://127.0.0.1:8000/notify', trusting, anAccount)).toMatchObject({
      ok: true,
      reach: 'local',
    });
    expect(checkCallbackUrl('https://erp.internal:8443/cobro', trusting, anAccount)).toMatchObject({
      ok: true,
      reach: 'local',
    });
    // Another port, another scheme or another host is another origin: the usual production rules apply.
    expect(checkCallbackUrl('http://127.0.0.1:8001/notify', trusting, anAccount)).toMatchObject({
      ok: false,
    });
    expect(checkCallbackUrl('https://127.0.0.1:8000/notify', trusting, anAccount)).toMatchObject({
      ok: false,
    });
    expect(checkCallbackUrl('http://erp.internal:8443/cobro', trusting, anAccount)).toMatchObject({
      ok: false,
    });
    expect(checkCallbackUrl('https://example.com/notify', trusting, anAccount)).toMatchObject({
      ok: true,
      reach: 'public',
    });
    // Trust never reaches cloud metadata or reserved addresses.
    const metadata = {
      mode: 'production',
      callbackTrustedOrigins: new Map([['http://169.254.169.254', 'every account']] as const),
    } as const;
    expect(
      checkCallbackUrl('http://169.254.169.254/latest/meta-data/', metadata, anAccount),
    ).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/link-local/),
    });
    // The sandbox ignores the list: it already reaches local addresses.
    expect(
      checkCallbackUrl(
        'http://10.0.0.1/notify',
        { mode: 'sandbox', callbackTrustedOrigins: none },
        anAccount,
      ),
    ).toMatchObject({ ok: true, reach: 'local' });
  });

  it('a trusted origin naming its accounts trusts those alone; one naming none keeps no answer (decision 987)', () => {
    const owner = 'accaaaaaaaaaaaaaaaaa';
    const trusting = {
      mode: 'production',
      callbackTrustedOrigins: new Map<string, 'every account' | ReadonlySet<string>>([
        ['http://127.0.0.1:8000', new Set([owner])],
        ['https://erp.internal:8443', new Set([owner])],
        ['http://10.0.0.9:8080', 'every account'],
      ]),
    } as const;
    expect(checkCallbackUrl('http://127.0.0.1:8000/notify', trusting, owner)).toMatchObject({
      ok: true,
      reach: 'local',
      answerKept: true,
    });
    expect(checkCallbackUrl('http://127.0.0.1:8000/notify', trusting, anAccount)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/http URLs/),
    });
    expect(checkCallbackUrl('https://erp.internal:8443/cobro', trusting, owner)).toMatchObject({
      reach: 'local',
    });
    // Another account's callback there is an ordinary production one: public addresses only, checked at connect.
    expect(checkCallbackUrl('https://erp.internal:8443/cobro', trusting, anAccount)).toMatchObject({
      ok: true,
      reach: 'public',
      answerKept: true,
    });
    for (const account of [owner, anAccount])
      expect(checkCallbackUrl('http://10.0.0.9:8080/hook', trusting, account)).toMatchObject({
        ok: true,
        reach: 'local',
        answerKept: false,
      });
    expect(checkCallbackUrl('https://example.com/', trusting, anAccount)).toMatchObject({
      answerKept: true,
    });
    expect(checkCallbackUrl('http://10.0.0.9:8080/hook', sandbox, anAccount)).toMatchObject({
      answerKept: true,
    });
  });

  it.each([
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f.1/',
    'https://127.1/',
    'https://0x7f000001/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://10.0.0.1/',
    'https://167772161/',
    'https://012.0.0.1/',
    'https://192.168.0.1:8443/',
    'https://[fd12::1]/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fe80::1]/',
    'https://0.0.0.0/',
    'https://100.64.1.1/',
  ])('production refuses the address literal %s', (url) => {
    const checked = checkCallbackUrl(url, production, anAccount);
    expect(checked.ok).toBe(false);
  });
});

describe('guardedLookup', () => {
  const dnsTable = fakeDns({
    'internal.example': ['10.1.2.3'],
    'rebind.example': ['93.184.216.34', '127.0.0.1'],
    'metadata.example': ['169.254.169.254'],
    'mapped.example': ['::ffff:192.168.0.10'],
    'public.example': ['93.184.216.34', '2606:4700::1111'],
  });

  it('refuses a name when any address it resolves to is not public', async () => {
    for (const host of [
      'internal.example',
      'rebind.example',
      'metadata.example',
      'mapped.example',
    ]) {
      const { error } = await lookupAll(guardedLookup('public', dnsTable), host);
      expect(error?.code, host).toBe('ECALLBACKREFUSED');
    }
  });

  it('passes public addresses through in both callback forms', async () => {
    const all = await lookupAll(guardedLookup('public', dnsTable), 'public.example');
    expect(all.error).toBeNull();
    expect(all.addresses).toHaveLength(2);
    const one = await new Promise<unknown[]>((resolve) =>
      guardedLookup('public', dnsTable)('public.example', {}, (...args) => resolve(args)),
    );
    expect(one).toEqual([null, '93.184.216.34', 4]);
  });

  it('passes resolver errors on', async () => {
    const { error } = await lookupAll(guardedLookup('public', dnsTable), 'missing.example');
    expect(error?.code).toBe('ENOTFOUND');
  });

  it('sandbox lets a name resolving to a private address through but not one resolving to metadata', async () => {
    expect(
      (await lookupAll(guardedLookup('local', dnsTable), 'internal.example')).error,
    ).toBeNull();
    expect(
      (await lookupAll(guardedLookup('local', dnsTable), 'metadata.example')).error?.code,
    ).toBe('ECALLBACKREFUSED');
  });
});

describe('sendWebhook address guard', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const send = (url: string, mode: 'sandbox' | 'production', resolve?: BaseLookup) =>
    sendWebhook({
      url,
      headers: { 'content-type': 'application/json' },
      body: '{}',
      policy: policies[mode],
      accountId: anAccount,
      timeoutMs: 2000,
      ...(resolve ? { resolve } : {}),
    });

  it('production refuses a host name that resolves to loopback, before connecting', async () => {
    // "localhost" goes through the system resolver, which answers 127.0.0.1 and/or ::1.
    const result = await send(`https://localhost:${receiver.port}/notify`, 'production');
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/refused: localhost resolves to .*, a loopback address/);
    const viaFakeDns = await send(
      `https://receiver.example:${receiver.port}/notify`,
      'production',
      fakeDns({ 'receiver.example': ['127.0.0.1'] }),
    );
    expect(viaFakeDns.error).toMatch(
      /refused: receiver.example resolves to 127.0.0.1, a loopback address/,
    );
    expect(receiver.requests).toHaveLength(0);
  });

  it('production refuses a host name that resolves into 10.0.0.0/8 without sending anything there', async () => {
    const result = await send(
      'https://payments.internal.example/notify',
      'production',
      fakeDns({ 'payments.internal.example': ['10.20.30.40'] }),
    );
    expect(result).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/resolves to 10\.20\.30\.40, a private address/),
    });
  });

  it('production refuses odd literal spellings of loopback', async () => {
    for (const host of [
      '127.0.0.1',
      '2130706433',
      '0177.0.0.1',
      '0x7f.1',
      '127.1',
      '[::ffff:127.0.0.1]',
    ]) {
      const result = await send(`https://${host}:${receiver.port}/`, 'production');
      expect(result.error, host).toMatch(/^refused: .*loopback/);
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('production delivers to a trusted origin on loopback, and still refuses the same host on another port', async () => {
    const trusting = {
      mode: 'production',
      callbackTrustedOrigins: new Map([
        [`http://127.0.0.1:${receiver.port}`, 'every account'],
      ] as const),
    } as const;
    const before = receiver.requests.length;
    const trusted = await sendWebhook({
      url: `http://127.0.0.1:${receiver.port}/notify`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
      policy: trusting,
      accountId: anAccount,
      timeoutMs: 2000,
    });
    expect(trusted).toMatchObject({ statusCode: 200, error: null });
    const other = await sendWebhook({
      url: `https://127.0.0.1:${receiver.port + 1}/notify`,
      headers: {},
      body: '{}',
      policy: trusting,
      accountId: anAccount,
      timeoutMs: 2000,
    });
    expect(other.error).toMatch(/^refused: .*loopback/);
    expect(receiver.requests.length).toBe(before + 1);
  });

  it('sandbox delivers to a name that resolves to loopback', async () => {
    const before = receiver.requests.length;
    const result = await send(
      `http://localhost.test:${receiver.port}/notify`,
      'sandbox',
      fakeDns({ 'localhost.test': ['127.0.0.1'] }),
    );
    expect(result.statusCode).toBe(200);
    expect(receiver.requests.length).toBe(before + 1);
  });
});

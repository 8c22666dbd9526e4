// Where a callback may go (supplement §5.4). Production: https only, and every address the host resolves to must be
// public, checked inside the connection's own DNS lookup so a name cannot resolve one way for the check and another
// for the connection (DNS rebinding). Sandbox: http and loopback/private allowed for local development, but never
// link-local (cloud metadata at 169.254.169.254) or reserved addresses. An operator may trust named origins in
// production (CALLBACK_TRUSTED_ORIGINS, decision 151): those reach loopback and private addresses like the sandbox,
// for the accounts the origin names; one that names none is open to every account, which then reads only the status
// of its answers, never an excerpt (decision 987).
import dns from 'node:dns';
import net from 'node:net';
import type { Config } from '../process/config.ts';

/** What decides where a callback may go: the mode and the operator's trusted origins (a Config satisfies it). */
export type CallbackPolicy = Pick<Config, 'mode' | 'callbackTrustedOrigins'>;

/** Which addresses a connection may use: public ones only, or loopback and private ones too. */
export type Reach = 'public' | 'local';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'metadata'
  | 'link-local'
  | 'reserved';

function blockList(subnets: readonly string[]): net.BlockList {
  const list = new net.BlockList();
  for (const subnet of subnets) {
    const [address, prefix] = subnet.split('/') as [string, string];
    list.addSubnet(address, Number(prefix), net.isIPv6(address) ? 'ipv6' : 'ipv4');
  }
  return list;
}

// IPv4 rules also match IPv4-mapped IPv6 addresses (::ffff:a.b.c.d): net.BlockList checks those against them.
const classes: readonly (readonly [AddressClass, net.BlockList])[] = [
  // Cloud metadata services (the host's credentials) outside link-local space, inside ranges the sandbox and trusted
  // origins may reach: Alibaba's in carrier-grade NAT space, AWS's IPv6 one in unique-local space (decision 970).
  // First, so that they never read as private.
  ['metadata', blockList(['100.100.100.200/32', 'fd00:ec2::254/128'])],
  ['loopback', blockList(['127.0.0.0/8', '::1/128'])],
  [
    'private',
    blockList([
      '10.0.0.0/8',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '100.64.0.0/10',
      '198.18.0.0/15',
      'fc00::/7',
    ]),
  ],
  ['link-local', blockList(['169.254.0.0/16', 'fe80::/10'])],
  [
    'reserved',
    blockList([
      '0.0.0.0/8',
      '192.0.0.0/24',
      '192.0.2.0/24',
      '198.51.100.0/24',
      '203.0.113.0/24',
      '224.0.0.0/4',
      '240.0.0.0/4',
      // Unspecified and IPv4-compatible, NAT64 and 6to4 (both embed an IPv4 address), discard, documentation,
      // site-local and multicast.
      '::/96',
      '64:ff9b::/96',
      '64:ff9b:1::/48',
      '2002::/16',
      '100::/64',
      '2001:db8::/32',
      'fec0::/10',
      'ff00::/8',
    ]),
  ],
];

export function classifyAddress(address: string): AddressClass {
  const family = net.isIP(address);
  if (family === 0) return 'reserved';
  const type = family === 6 ? 'ipv6' : 'ipv4';
  for (const [name, list] of classes) if (list.check(address, type)) return name;
  return 'public';
}

const allowedClasses: Readonly<Record<Reach, ReadonlySet<AddressClass>>> = {
  public: new Set<AddressClass>(['public']),
  local: new Set<AddressClass>(['public', 'loopback', 'private']),
};

/** Why an address is refused at this reach, or null when it may be used. */
export function addressRefusal(address: string, reach: Reach): string | null {
  const found = classifyAddress(address);
  return allowedClasses[reach].has(found) ? null : `${address} is a ${found} address`;
}

/**
 * An IPv4 literal in any form the C library's inet_aton accepts (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`),
 * as dotted quad; null when the text is not one. Resolvers treat these as addresses, so the guard must too.
 */
export function parseIpv4Literal(text: string): string | null {
  const parts = text.split('.');
  if (parts.length > 4) return null;
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) value = part.length === 1 ? 0 : parseInt(part.slice(1), 8);
    else if (/^[1-9][0-9]*$/.test(part)) value = parseInt(part, 10);
    else return null;
    if (!Number.isSafeInteger(value)) return null;
    values.push(value);
  }
  if (values.length === 0) return null;
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  const bytes = [...values];
  for (let i = 4 - values.length - 1; i >= 0; i--) bytes.push(Math.floor(last / 256 ** i) % 256);
  return bytes.join('.');
}

export type UrlCheck =
  | {
      readonly ok: true;
      readonly url: URL;
      readonly reach: Reach;
      /**
       * Whether the receiver's answer may be kept (and shown to the account) beyond its status: not through a trusted
       * origin open to every account, whose answers are the operator's service's, not the account's (decision 987).
       */
      readonly answerKept: boolean;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Checks scheme and, for an address literal in any spelling, the address, for a callback of `accountId` (a trusted
 * origin trusts the accounts it names). Host names are checked at connect.
 */
export function checkCallbackUrl(
  text: string,
  policy: CallbackPolicy,
  accountId: string,
): UrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  // The origin carries the scheme, so trusting http://erp.internal:8080 allows plain http to that origin alone.
  const accounts =
    policy.mode === 'production' ? policy.callbackTrustedOrigins.get(url.origin) : undefined;
  const trusted =
    accounts !== undefined && (accounts === 'every account' || accounts.has(accountId));
  const answerKept = !trusted || accounts !== 'every account';
  const reach: Reach = policy.mode === 'sandbox' || trusted ? 'local' : 'public';
  const schemes = policy.mode === 'production' && !trusted ? ['https:'] : ['https:', 'http:'];
  if (!schemes.includes(url.protocol))
    return {
      ok: false,
      reason: `${url.protocol.replace(':', '')} URLs are not allowed in ${policy.mode} mode`,
    };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'credentials in the URL are not allowed' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = net.isIP(host) !== 0 ? host : parseIpv4Literal(host);
  if (literal !== null) {
    const refusal = addressRefusal(literal, reach);
    if (refusal !== null) return { ok: false, reason: refusal };
  }
  return { ok: true, url, reach, answerKept };
}

/**
 * Whether an attempt's kept answer may be shown to `accountId` under the policy in force (decision 983): not when the
 * URL's origin is trusted in production for every account, or for accounts that are not this one. Attempts written
 * before decision 987 kept every answer, whoever sent it; this hides those the rules of 987 would not have kept.
 */
export function answerShown(text: string, policy: CallbackPolicy, accountId: string): boolean {
  if (policy.mode !== 'production') return true;
  let origin: string;
  try {
    origin = new URL(text).origin;
  } catch {
    return true;
  }
  const accounts = policy.callbackTrustedOrigins.get(origin);
  return accounts === undefined || (accounts !== 'every account' && accounts.has(accountId));
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;
export type BaseLookup = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

const systemLookup: BaseLookup = (hostname, options, callback) =>
  dns.lookup(hostname, options, callback);

/**
 * A `lookup` for node:http(s) that resolves every address of the host and refuses the connection when any of them
 * is not allowed at this reach: the connection then uses exactly the addresses that were checked.
 */
export function guardedLookup(reach: Reach, base: BaseLookup = systemLookup) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    base(
      hostname,
      { family: options.family ?? 0, hints: options.hints ?? 0, all: true },
      (error, addresses) => {
        if (error !== null) return callback(error, []);
        const refused = addresses.find((a) => addressRefusal(a.address, reach) !== null);
        if (refused !== undefined || addresses.length === 0) {
          const why =
            refused === undefined
              ? 'no address'
              : `${refused.address}, a ${classifyAddress(refused.address)} address`;
          const denied: NodeJS.ErrnoException = new Error(
            `refused: ${hostname} resolves to ${why}`,
          );
          denied.code = 'ECALLBACKREFUSED';
          return callback(denied, []);
        }
        if (options.all === true) return callback(null, addresses);
        const first = addresses[0]!;
        callback(null, first.address, first.family);
      },
    );
  };
}

// Cloud metadata services that answer outside link-local space (Alibaba's 100.100.100.200 in carrier-grade NAT, AWS's
// IPv6 fd00:ec2::254 in unique-local space) are refused at every reach, as 169.254.169.254 is: the sandbox and an
// operator-trusted origin reach private addresses, never the host's credentials (decision 970).
import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  checkCallbackUrl,
  type BaseLookup,
} from '../../../src/platform/notifications/ssrf-guard.ts';
import { sendWebhook } from '../../../src/platform/notifications/send.ts';

/** Whose callbacks these are: a trusted origin's accounts are checked against it (decision 987). */
const anAccount = 'acc0123456789abcdef0';

const sandbox = { mode: 'sandbox', callbackTrustedOrigins: new Map() } as const;
const trusting = {
  mode: 'production',
  callbackTrustedOrigins: new Map([
    ['http://100.100.100.200', 'every account'],
    ['http://[fd00:ec2::254]', 'every account'],
  ] as const),
} as const;

/** Stands in for DNS: the name resolves to the one address given. */
const resolvingTo =
  (address: string): BaseLookup =>
  (_hostname, _options, callback) =>
    callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);

describe('cloud metadata outside link-local space', () => {
  it.each(['100.100.100.200', 'fd00:ec2::254', '::ffff:100.100.100.200'])(
    '%s is refused at local reach',
    (address) => {
      expect(addressRefusal(address, 'local')).toMatch(/metadata/);
      expect(addressRefusal(address, 'public')).toMatch(/metadata/);
    },
  );

  it('the sandbox and a trusted origin refuse its literals; their neighbours stay private', () => {
    for (const url of [
      'http://100.100.100.200/latest',
      'http://[fd00:ec2::254]/latest/meta-data/',
    ]) {
      expect(checkCallbackUrl(url, sandbox, anAccount), url).toMatchObject({ ok: false });
      expect(checkCallbackUrl(url, trusting, anAccount), url).toMatchObject({ ok: false });
    }
    expect(addressRefusal('100.100.100.201', 'local')).toBeNull();
    expect(addressRefusal('fd00:ec2::1:254', 'local')).toBeNull();
  });

  it('a sandbox callback to a name resolving there is refused before any connection', async () => {
    for (const address of ['100.100.100.200', 'fd00:ec2::254']) {
      const result = await sendWebhook({
        url: 'http://metadata.example/latest/meta-data/',
        headers: {},
        body: '{}',
        policy: sandbox,
        accountId: anAccount,
        timeoutMs: 500,
        resolve: resolvingTo(address),
      });
      expect(result.error, address).toMatch(/^refused: metadata\.example resolves to .*metadata/);
    }
  });
});

// A callback host's addresses asked of the name servers through c-ares (node:dns's Resolver), not the system's
// getaddrinfo (dns.lookup). getaddrinfo runs on libuv's thread pool, four threads by default, and a host whose name
// servers never answer holds a thread for the system resolver's own timeouts, past the send's: a few such hosts
// stalled every other lookup and every crypto.scrypt of the process (decision 800). c-ares runs on the event loop and
// gives up after its tries (limits.deliveryDnsTryMs, deliveryDnsTries). It reads the name servers of
// /etc/resolv.conf but not /etc/hosts, so only hosts that must be public use it; loopback and private ones (the
// sandbox, trusted origins) keep the system's resolver and its hosts file (decision 855).
import dns from 'node:dns';
import { limits } from '../../limits/index.ts';
import type { BaseLookup } from './ssrf-guard.ts';

export function nameServerResolver(): dns.promises.Resolver {
  return new dns.promises.Resolver({
    timeout: limits.deliveryDnsTryMs,
    tries: limits.deliveryDnsTries,
  });
}

/** RFC 6761: `localhost` and its subdomains are loopback, answered without a name server, so the guard names them. */
const loopbackNames = /^(.+\.)?localhost\.?$/i;

/** A BaseLookup over `resolver`: every A and AAAA record of the host (as `options.family` asks), IPv4 first. */
export function nameServerLookup(resolver: dns.promises.Resolver): BaseLookup {
  return (hostname, options, callback) => {
    if (loopbackNames.test(hostname))
      return callback(null, [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ]);
    const asked = [
      ...(options.family === 6
        ? []
        : [resolver.resolve4(hostname).then((a) => ({ a, family: 4 }))]),
      ...(options.family === 4
        ? []
        : [resolver.resolve6(hostname).then((a) => ({ a, family: 6 }))]),
    ];
    void Promise.allSettled(asked).then((answers) => {
      const addresses = answers.flatMap((r) =>
        r.status === 'fulfilled'
          ? r.value.a.map((address) => ({ address, family: r.value.family }))
          : [],
      );
      const failed = answers.find((r) => r.status === 'rejected');
      // A host with only A records answers AAAA with ENODATA: a failure only when no family had an address.
      if (addresses.length === 0 && failed !== undefined)
        return callback(failed.reason as NodeJS.ErrnoException, []);
      callback(null, addresses);
    });
  };
}

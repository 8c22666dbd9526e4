// A callback receiver on loopback that counts signed deliveries and says when the expected number has arrived.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface Receiver {
  readonly url: string;
  received(): number;
  /** Resolves with the milliseconds from the first to the `count`-th signed delivery, or null past `timeoutMs`. */
  waitFor(count: number, timeoutMs: number): Promise<number | null>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let signed = 0;
  let firstAt = 0;
  let lastAt = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (typeof req.headers['webhook-signature'] === 'string') {
        if (signed === 0) firstAt = performance.now();
        signed++;
        lastAt = performance.now();
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received: () => signed,
    async waitFor(count, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while (signed < count && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      return signed >= count ? Math.max(1, Math.round(lastAt - firstAt)) : null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

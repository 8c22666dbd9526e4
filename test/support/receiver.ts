// A local callback receiver for delivery tests: records every request and answers as the test scripts it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** Status to answer, or 'hang' to never answer (the connection stays open until the receiver closes). */
export type Answer =
  | number
  | 'hang'
  | { status: number; body?: string; headers?: Record<string, string> };

export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  /** Requests per webhook-id. */
  countsById(): Map<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (request: ReceivedRequest, index: number) => Answer = () => 200,
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      const a = answer(received, requests.length - 1);
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      const { status, body, headers } =
        typeof a === 'number' ? { status: a, body: 'ok', headers: {} } : a;
      res.writeHead(status, headers ?? {}).end(body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    countsById() {
      const counts = new Map<string, number>();
      for (const r of requests) {
        const id = String(r.headers['webhook-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Receivers a test file starts and closes together (call `closeAll` in afterEach). */
export function receiverPool(): { start: typeof startReceiver; closeAll(): Promise<void> } {
  let open: Receiver[] = [];
  return {
    async start(...args) {
      const r = await startReceiver(...args);
      open.push(r);
      return r;
    },
    async closeAll() {
      await Promise.all(open.map((r) => r.close()));
      open = [];
    },
  };
}

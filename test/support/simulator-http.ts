// The HTTP scaffolding the processor simulators share (webpay-simulator.ts, oneclick-simulator.ts): a server on a
// free loopback port whose API paths go to one handler and the payer's pages to another, a 500 in the API's shape
// for a handler that throws, and a close that also drops the connections a fault left open.
import http from 'node:http';
import type net from 'node:net';

export type SimulatorHandler = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  path: string,
) => Promise<void>;

export interface SimulatorServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  close(): Promise<void>;
}

export function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Serves paths under `apiPrefix` with `handleApi` and every other path with `handlePayer`. */
export async function serveSimulator(
  apiPrefix: string,
  handleApi: SimulatorHandler,
  handlePayer: SimulatorHandler,
): Promise<SimulatorServer> {
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const handled = path.startsWith(apiPrefix)
      ? handleApi(req, res, path)
      : handlePayer(req, res, path);
    handled.catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error_message: String(error) });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// A TCP relay to PostgreSQL that can go silent, as a host that crashed or dropped off the network (no RST), or
// that forgets the connections it carries, as a NAT or a load balancer dropping an idle flow: bytes swallowed on
// them, nothing closed, while new connections are relayed again.
import net from 'node:net';

export interface TcpRelay {
  listen(): Promise<void>;
  /** Every connection, those to come included, is accepted and never answered. */
  goSilent(): void;
  /** The connections open now swallow every byte and stay open; new ones are relayed as before. */
  dropEstablished(): void;
  close(): Promise<void>;
}

export function tcpRelay(port: number, target: { host: string; port: number }): TcpRelay {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const dropped = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => {});
    client.on('close', () => sockets.delete(client));
    if (silent) return; // accepted, never answered
    const upstream = net.connect(target.port, target.host);
    sockets.add(upstream);
    const live = () => !silent && !dropped.has(client);
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => sockets.delete(upstream));
    client.on('data', (c: Buffer) => {
      if (live()) upstream.write(c);
    });
    upstream.on('data', (c: Buffer) => {
      if (live()) client.write(c);
    });
    client.on('close', () => upstream.destroy());
  });
  return {
    listen: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    goSilent: () => {
      silent = true;
    },
    dropEstablished: () => {
      for (const s of sockets) dropped.add(s);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

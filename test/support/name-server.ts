// A name server for tests on 127.0.0.1 over UDP (RFC 1035's message format, the least of it): A queries answered
// from a table, a name outside it NXDOMAIN, any other type an empty answer; or, `silent`, never an answer.
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

export interface NameServer {
  /** `127.0.0.1:port`, for a resolver's setServers. */
  readonly address: string;
  readonly queries: () => number;
  readonly close: () => Promise<void>;
}

function questionEnd(message: Buffer): number {
  let at = 12;
  while (message[at] !== 0) at += (message[at] ?? 0) + 1;
  return at + 5; // the root label, QTYPE and QCLASS
}

function nameOf(message: Buffer): string {
  const labels: string[] = [];
  for (let at = 12; message[at] !== 0; at += (message[at] ?? 0) + 1)
    labels.push(message.subarray(at + 1, at + 1 + (message[at] ?? 0)).toString('latin1'));
  return labels.join('.').toLowerCase();
}

function answer(message: Buffer, table: Readonly<Record<string, readonly string[]>>): Buffer {
  const end = questionEnd(message);
  const type = message.readUInt16BE(end - 4);
  const found = table[nameOf(message)];
  const addresses = found !== undefined && type === 1 ? found : [];
  const header = Buffer.alloc(12);
  message.copy(header, 0, 0, 2);
  header.writeUInt16BE(found === undefined ? 0x8183 : 0x8180, 2); // a response, NXDOMAIN or NOERROR
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((a) => {
    const r = Buffer.alloc(12);
    r.writeUInt16BE(0xc00c, 0); // the question's name
    r.writeUInt16BE(1, 2); // A
    r.writeUInt16BE(1, 4); // IN
    r.writeUInt32BE(60, 6);
    r.writeUInt16BE(4, 10);
    return Buffer.concat([r.subarray(0, 12), Buffer.from(a.split('.').map(Number))]);
  });
  return Buffer.concat([header, message.subarray(12, end), ...records]);
}

export async function startNameServer(
  table: Readonly<Record<string, readonly string[]>>,
  options: { readonly silent?: boolean } = {},
): Promise<NameServer> {
  const socket = dgram.createSocket('udp4');
  let queries = 0;
  socket.on('message', (message, from) => {
    queries++;
    if (options.silent !== true) socket.send(answer(message, table), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    queries: () => queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

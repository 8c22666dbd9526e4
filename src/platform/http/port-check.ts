// Whether HOST:PORT can be listened on, asked before a starting server opens or creates anything, so a port in use
// is one sentence and leaves DATA_DIR as it was. The server's own listen still reports a port taken in between.
import net from 'node:net';
import { StartupError, errorText } from '../process/startup-error.ts';

export function listenErrorText(host: string, port: number, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use (another cobro serve?): stop that process or set PORT to a free port`;
    case 'EACCES':
      return `not allowed to listen on port ${port} on ${host}: set PORT to a port above 1023`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on HOST ${host}: it is not an address of this machine (${code})`;
    default:
      return `cannot listen on ${host}:${port}: ${errorText(error)}`;
  }
}

export function checkPortFree(host: string, port: number): Promise<void> {
  // Port 0 asks the system for any free port: nothing to check.
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error) => reject(new StartupError(listenErrorText(host, port, error))));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

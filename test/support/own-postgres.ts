// A PostgreSQL 15 cluster of a test's own, in a temp directory on a free port, so a test may restart or stop it
// (the shared server at 127.0.0.1:5432 is never touched). Needs root (the cluster runs as the `postgres` user
// through runuser) and the Debian packages' binaries; `ownPostgresSkipReason` says why a test cannot have one.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './net.ts';

const run = promisify(execFile);
const binDir = '/usr/lib/postgresql/15/bin';

export interface OwnPostgres {
  readonly url: string;
  readonly port: number;
  /** `pg_ctl restart -m immediate`: every backend killed at once, crash recovery on start; resolves once it accepts connections. */
  restartImmediate(): Promise<void>;
  /**
   * Stops the cluster and starts it again in standby mode (standby.signal, no primary to follow), as a demoted primary
   * or a standby not yet promoted: it accepts connections and reads, is in recovery, and refuses writes.
   */
  demote(): Promise<void>;
  dispose(): Promise<void>;
}

/** Why this machine cannot run a cluster of the test's own, or null when it can. */
export function ownPostgresSkipReason(): string | null {
  if (process.getuid?.() !== 0)
    return 'starting a PostgreSQL cluster as the postgres user needs root';
  if (!fs.existsSync(path.join(binDir, 'pg_ctl'))) return `no PostgreSQL 15 binaries in ${binDir}`;
  return null;
}

const asPostgres = (bin: string, args: readonly string[]) =>
  run('runuser', ['-u', 'postgres', '--', path.join(binDir, bin), ...args], { timeout: 60_000 });

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-own-pg-'));
  fs.chownSync(
    dir,
    Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  );
  const data = path.join(dir, 'data');
  const port = await freePort();
  await asPostgres('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  // fsync off: the test restarts the server, never the machine; crash recovery from the WAL is what runs.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=60`;
  const ctl = (args: readonly string[]) =>
    asPostgres('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', ...args]);
  await ctl(['-o', options, 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restartImmediate: async () => {
      await ctl(['-m', 'immediate', 'restart']);
    },
    demote: async () => {
      await ctl(['-m', 'fast', 'stop']);
      await run('runuser', ['-u', 'postgres', '--', 'touch', path.join(data, 'standby.signal')]);
      await ctl(['-o', options, 'start']);
    },
    dispose: async () => {
      await ctl(['-m', 'immediate', 'stop']).catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

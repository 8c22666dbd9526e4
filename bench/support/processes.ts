// Starts the servers a bench measures as real child processes on loopback ports, with the pinned Node, and times
// how long each takes to answer /readyz (the cold start).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/support/net.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// At load 21 on this shared box the warm restart on PGlite (workers on, 3,500 callbacks waiting) took 115 s to
// answer /readyz, 0.7-1.0 s on a quiet box; twice it took more than 60 s and the run was lost.
const readyTimeoutMs = 180_000;
const readyPollMs = 20;

export interface Spawned {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawn to the first 200 from /readyz. */
  readonly readyMs: number;
  stop(): Promise<void>;
  /** kill -9, as a crash or the OOM killer would: no shutdown work at all. */
  kill(): Promise<void>;
}

async function waitReady(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = performance.now() + readyTimeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`server exited with ${child.exitCode}: ${stderr()}`);
    const res = await fetch(`${url}/readyz`).catch(() => null);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, readyPollMs));
  }
  throw new Error(`server not ready within ${readyTimeoutMs} ms: ${stderr()}`);
}

async function start(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<Spawned> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (b: Buffer) => {
    if (err.length < 4000) err += b.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child, () => err).catch((e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
  const readyMs = Math.round(performance.now() - started);
  return {
    url,
    pid: child.pid!,
    readyMs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const hard = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(hard);
          resolve();
        });
        child.kill('SIGTERM');
      }),
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** `cobro serve` on the given database (DATABASE_URL, or DATA_DIR alone for PGlite). */
export function startCobro(env: Readonly<Record<string, string>>): Promise<Spawned> {
  // Through bin/cobro.js, as `npm start` and bin/cobro run it: with Node's compile cache (decision 410).
  return start(['bin/cobro.js', 'serve'], {
    COBRO_MODE: 'sandbox',
    RATE_LIMIT_PER_MINUTE: '0',
    ...env,
  });
}

/** The limits' server (bench/limit-server.ts) on the same kind of database. */
export function startLimitServer(env: Readonly<Record<string, string>>): Promise<Spawned> {
  return start(['bench/limit-server.ts'], env);
}

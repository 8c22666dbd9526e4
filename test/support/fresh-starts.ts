// Fresh embedded servers started the way a supervisor or a test harness starts them (decision 410): `npm start`,
// output read through pipes, each on an empty DATA_DIR of its own and a port of its own (PORT=0: the port is read
// from the "cobro is serving" line), several at once beside a core kept busy by a spinning process. A start counts
// as ready once its line is out and /readyz answers 200. Used by test/cli/fresh-starts.test.ts (20 starts) and
// bench/fresh-starts.ts (100).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { childEnv, repoRoot } from './cli.ts';

export interface FreshStart {
  readonly ready: boolean;
  /** Milliseconds from spawn to /readyz answering 200; to giving up when not ready. */
  readonly ms: number;
  /** Why it is not ready: the exit or the timeout, with the start's output. */
  readonly failure: string | null;
}

export interface FreshStartsOptions {
  readonly count: number;
  readonly concurrency: number;
  /** A start not ready by then is a failure (and is killed). */
  readonly startTimeoutMs: number;
  /** Extra environment for each start (READY_TIMEOUT_MS, ...). */
  readonly env?: Readonly<Record<string, string>>;
  readonly onStart?: (index: number, result: FreshStart) => void;
}

const servingLine = /"address":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"cobro is serving/;

/** Ends the whole group npm started (npm, its shell, the server). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* already gone */
  }
}

function stopped(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const hard = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
    child.once('close', () => {
      clearTimeout(hard);
      resolve();
    });
    killGroup(child, 'SIGTERM');
  });
}

async function readyz(address: string): Promise<boolean> {
  const res = await fetch(`${address}/readyz`).catch(() => null);
  return res?.status === 200;
}

/** One `npm start` on a new empty DATA_DIR, until ready or the timeout; always stopped and cleaned after. */
async function freshStart(
  options: Pick<FreshStartsOptions, 'startTimeoutMs' | 'env'>,
): Promise<FreshStart> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-fresh-'));
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: repoRoot,
    env: childEnv({
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      COBRO_MODE: 'sandbox',
      ...options.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    if (output.length < 64 * 1024) output += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<string>((resolve) =>
    child.once('close', (code, signal) => resolve(`exited with ${code ?? signal}`)),
  );
  const timedOut = new Promise<string>((resolve) => {
    setTimeout(
      () => resolve(`not ready in ${options.startTimeoutMs} ms`),
      options.startTimeoutMs,
    ).unref();
  });
  let settled = false;
  const ready = (async () => {
    while (!settled) {
      const address = servingLine.exec(output)?.[1];
      if (address !== undefined && (await readyz(address))) return null;
      await new Promise((r) => setTimeout(r, 25));
    }
    return 'stopped';
  })();
  const failure = await Promise.race([ready, exited, timedOut]);
  settled = true;
  const ms = Math.round(performance.now() - started);
  await stopped(child);
  fs.rmSync(dataDir, { recursive: true, force: true });
  return {
    ready: failure === null,
    ms,
    failure: failure === null ? null : `${failure}:\n${output.slice(-4000)}`,
  };
}

/** `count` fresh starts, `concurrency` at a time. */
export async function freshStarts(options: FreshStartsOptions): Promise<FreshStart[]> {
  const results: FreshStart[] = [];
  let next = 0;
  const lane = async () => {
    while (next < options.count) {
      const index = next++;
      const result = await freshStart(options);
      results[index] = result;
      options.onStart?.(index, result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, lane));
  return results;
}

/**
 * A process spinning on one core until stopped; `nice` 19 lets it yield to the starts (a test's time budget).
 * Each start runs in a session of its own (`detached`), and Linux with autogroup scheduling shares the CPU between
 * sessions first and applies a process's nice only within its session: a niced spinner in the test's session
 * still took a session's full share beside the starts (decision 610). So the spinner gets a session of its own
 * too, and that session's nice is set where the kernel offers it (`/proc/<pid>/autogroup`).
 */
export function busyCore(nice = 0): { stop(): Promise<void> } {
  // Ten minutes at most: a spinner in a session of its own outlives a test run that is cut short.
  const spin = 'const end = Date.now() + 600000; while (Date.now() < end) {}';
  const child = spawn(process.execPath, ['-e', spin], { stdio: 'ignore', detached: true });
  if (nice !== 0) {
    try {
      os.setPriority(child.pid!, nice);
      const autogroup = `/proc/${child.pid}/autogroup`;
      if (fs.existsSync(autogroup)) fs.writeFileSync(autogroup, String(nice));
    } catch {
      // The kernel refuses an autogroup's nice from a user who set another within 100 ms: the spinner then takes
      // its session's share, and the starts take longer, not fail.
    }
  }
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

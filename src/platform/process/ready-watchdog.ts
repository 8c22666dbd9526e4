// A start that never becomes ready ends, loudly, so that a supervisor restarts it (decision 410): `cobro serve` and
// `cobro worker` arm this first thing and disarm it once they serve; while armed, a ref'd timer also keeps the
// event loop from ever running empty, where the deadlock below starts. The watchdog has to work when the main
// thread is stuck, and a stuck main thread runs no timers (Node's deadlock in NodePlatform::DrainTasks, issue
// 54918, waits below JavaScript). So the watchdog is a worker thread that blocks in Atomics.wait until the main thread says it is
// ready or the time is up; then it writes straight to file descriptor 2 (a worker's process.stderr is relayed by
// the main thread, which would never write it) and kills the whole process with SIGKILL, which needs no handler.
// A worker's own event loop never turns before that (its whole script is the one wait), so it needs nothing from
// the main thread nor from V8's task pool. Once ready, the worker's script ends and the thread exits.
import { Worker } from 'node:worker_threads';

/** CommonJS evaluated in the worker: no TypeScript, no module loading beyond Node's own. */
const watchdogSource = `
const fs = require('node:fs');
const { workerData } = require('node:worker_threads');
const state = new Int32Array(workerData.state);
Atomics.wait(state, 0, 0, workerData.timeoutMs);
if (Atomics.load(state, 0) === 0) {
  fs.writeSync(2, workerData.message);
  process.kill(process.pid, 'SIGKILL');
}
`;

export interface ReadyWatchdog {
  /** The process serves: the watchdog stands down. */
  ready(): void;
}

/** "cobro: not ready after 60 s": the line a supervisor's log shows. */
export function notReadyMessage(timeoutMs: number): string {
  return `cobro: not ready after ${Number((timeoutMs / 1000).toFixed(3))} s\n`;
}

/** Arms the watchdog: unless ready() is called within `timeoutMs`, the process is killed. */
export function startReadyWatchdog(timeoutMs: number): ReadyWatchdog {
  const state = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const view = new Int32Array(state);
  const worker = new Worker(watchdogSource, {
    eval: true,
    // Counted from the worker's start, a few ms after this: a stuck start is reported that much later, never sooner.
    workerData: { state, timeoutMs, message: notReadyMessage(timeoutMs) },
    // Nothing of the parent's preloads or flags: the watchdog runs Node's own modules only.
    execArgv: [],
    env: {},
  });
  // Never what keeps the process alive, and a watchdog that failed to start is reported, not fatal.
  worker.unref();
  worker.on('error', (error) => {
    process.stderr.write(`cobro: readiness watchdog failed: ${String(error)}\n`);
  });
  // The start's own guard against the deadlock: while it runs, the event loop always has a timer to wait on, so
  // Node never leaves it to drain V8's background tasks (as src/platform/db/database.ts does around PGlite.create).
  const keepLoopTurning = setInterval(() => {}, 1000);
  return {
    ready() {
      clearInterval(keepLoopTurning);
      Atomics.store(view, 0, 1);
      Atomics.notify(view, 0);
    },
  };
}

/**
 * Test hook, read from the environment only (test/cli/ready-watchdog.test.ts): COBRO_TEST_HANG_AT_START=1 blocks
 * the main thread for good before the start, as the deadlock did, so the test sees the watchdog end the process.
 */
export function hangIfAskedByTest(): void {
  if (process.env.COBRO_TEST_HANG_AT_START === '1')
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

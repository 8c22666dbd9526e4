// A start that never becomes ready ends, loudly, so that a supervisor restarts it (decision 410): `cobro serve` and
// `cobro worker` arm this first thing and disarm it once they serve; while armed, a ref'd timer also keeps the
// event loop from ever running empty, where the deadlock below starts. The watchdog has to work when the main
// thread is stuck, and a stuck main thread runs no timers (Node's deadlock in NodePlatform::DrainTasks, issue
// 54918, waits below JavaScript). So the watchdog is a worker thread that blocks in Atomics.wait until the main thread says it is
// ready or the time is up; then it writes straight to file descriptor 2 (a worker's process.stderr is relayed by
// the main thread, which would never write it) and kills the whole process with SIGKILL, which needs no handler.
// A worker's own event loop never turns before that (its whole script is the one wait), so it needs nothing from
// the main thread nor from V8's task pool. Once ready, the worker's script ends and the thread exits.
// The start's migrations are the one stretch of a start with no bound of its own (an index built on a large table,
// the migration lock another process holds): while they run, the main thread beats and only silence ends it
// (decision 930).
import { Worker } from 'node:worker_threads';
import { configLimits } from '../../limits/index.ts';

const phaseStarting = 0;
const phaseMigrating = 1;
const phaseReady = 2;

/**
 * CommonJS evaluated in the worker: no TypeScript, no module loading beyond Node's own. Cell 0 is the phase, cell 1
 * counts the signs of progress; the worker waits on cell 1, and only a wait that times out on an unchanged count
 * ends the process. Nothing moves the count before the migrations begin, so a start stuck there is caught
 * `timeoutMs` after the spawn, as before (decision 930).
 */
const watchdogSource = `
const fs = require('node:fs');
const { workerData } = require('node:worker_threads');
const state = new Int32Array(workerData.state);
for (;;) {
  const seen = Atomics.load(state, 1);
  if (Atomics.load(state, 0) === ${phaseReady}) break;
  const outcome = Atomics.wait(state, 1, seen, workerData.timeoutMs);
  if (Atomics.load(state, 0) === ${phaseReady}) break;
  if (outcome === 'timed-out' && Atomics.load(state, 1) === seen) {
    fs.writeSync(2, workerData.message);
    process.kill(process.pid, 'SIGKILL');
  }
}
`;

export interface ReadyWatchdog {
  /**
   * The start's migrations begin: until migrated(), the deadline gives way to a bound on silence. The main thread
   * beats while its event loop turns, and the watchdog ends the process only after `timeoutMs` without a beat (a
   * deadlocked or blocked main thread), however long the migrations take (decision 930).
   */
  migrating(): void;
  /** The migrations ended: the rest of the start has a whole `timeoutMs` again, counted from now. */
  migrated(): void;
  /** The process serves: the watchdog stands down. */
  ready(): void;
}

/** "cobro: not ready after 60 s": the line a supervisor's log shows. */
export function notReadyMessage(timeoutMs: number): string {
  return `cobro: not ready after ${Number((timeoutMs / 1000).toFixed(3))} s\n`;
}

/** Arms the watchdog: unless ready() is called within `timeoutMs`, the process is killed. */
export function startReadyWatchdog(timeoutMs: number): ReadyWatchdog {
  const state = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
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
  const beat = () => {
    Atomics.add(view, 1, 1);
    Atomics.notify(view, 1);
  };
  // The start's own guard against the deadlock: while it runs, the event loop always has a timer to wait on, so
  // Node never leaves it to drain V8's background tasks (as src/platform/db/database.ts does around PGlite.create).
  // While the migrations run, the same timer is their beat: it fires only on a main thread whose loop turns.
  const beatMs = Math.max(
    1,
    Math.min(
      configLimits.readyBeatMsMax,
      Math.floor(timeoutMs / configLimits.readyBeatsPerTimeoutMin),
    ),
  );
  const keepLoopTurning = setInterval(() => {
    if (Atomics.load(view, 0) === phaseMigrating) beat();
  }, beatMs);
  return {
    migrating() {
      Atomics.store(view, 0, phaseMigrating);
      beat();
    },
    migrated() {
      Atomics.store(view, 0, phaseStarting);
      beat();
    },
    ready() {
      clearInterval(keepLoopTurning);
      Atomics.store(view, 0, phaseReady);
      beat();
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

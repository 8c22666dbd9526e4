// Loaded with `node --import` into a child `cobro serve`: once the file named by $COBRO_TEST_HANG_FILE exists, its
// main thread blocks for good in Atomics.wait, where no timer of its own runs, as a deadlocked one does (Node issue
// 54918). A test creates the file at the moment it chooses (test/cli/ready-watchdog-migrations.test.ts: in the
// middle of the start's migrations). Nothing in a worker thread (the readiness watchdog's own).
import fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.COBRO_TEST_HANG_FILE;
const pollMs = 20;
if (isMainThread && file !== undefined && file !== '') {
  setInterval(() => {
    if (fs.existsSync(file)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  }, pollMs).unref();
}

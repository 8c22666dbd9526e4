// `node bench/fresh-starts.ts`: the long version of test/cli/fresh-starts.test.ts (decision 410). Fresh embedded
// servers started through `npm start` with their output on pipes, each on an empty DATA_DIR and a port of its own,
// several at once beside a core kept busy by a spinning process (not niced, unlike the test's); every one must
// answer /readyz. Before decision 410 about 1 start in 4 hung this way under load (Node issue 54918). Prints each
// start's time to ready and a summary; exits 1 if any start was not ready.
// FRESH_STARTS (100), FRESH_STARTS_AT_ONCE (3), FRESH_START_TIMEOUT_MS (120000; READY_TIMEOUT_MS of each start is
// 60000 unless set).
import { busyCore, freshStarts } from '../test/support/fresh-starts.ts';

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive integer`);
  return Number(raw);
}

const count = positiveInt('FRESH_STARTS', 100);
const concurrency = positiveInt('FRESH_STARTS_AT_ONCE', 3);
const startTimeoutMs = positiveInt('FRESH_START_TIMEOUT_MS', 120_000);
const busy = busyCore();
try {
  const results = await freshStarts({
    count,
    concurrency,
    startTimeoutMs,
    env: { READY_TIMEOUT_MS: process.env.READY_TIMEOUT_MS ?? '60000' },
    onStart: (index, result) => {
      process.stdout.write(
        `start ${String(index + 1).padStart(3)}: ${result.ready ? `ready in ${result.ms} ms` : `NOT READY after ${result.ms} ms`}\n`,
      );
      if (result.failure !== null) process.stdout.write(`${result.failure}\n`);
    },
  });
  const times = results
    .filter((r) => r.ready)
    .map((r) => r.ms)
    .sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  const failed = results.length - times.length;
  process.stdout.write(
    `${times.length} of ${results.length} fresh starts ready, ${concurrency} at a time beside a busy core; ` +
      `time to ready p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${times.at(-1) ?? 0} ms\n`,
  );
  process.exitCode = failed === 0 ? 0 : 1;
} finally {
  await busy.stop();
}

// Measurement only (vitest.config.ts loads it when COBRO_CPU_REPORT names a file): appends one JSON line per test
// file with the CPU seconds its worker spent (`self`) and those of the child processes it started and waited for
// (`children`: `cobro serve`, `npm start`, bash), read from Linux's /proc/self/stat. CPU seconds, unlike wall time,
// hardly change when other work shares the machine. `node test/support/cpu-report.ts FILE` ranks them.
import fs from 'node:fs';
import { afterAll, expect } from 'vitest';

const ticksPerSecond = 100; // USER_HZ, 100 on every Linux architecture

function cpuSeconds(): { self: number; children: number } {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const at = (i: number) => Number(fields[i]) / ticksPerSecond;
  return { self: at(11) + at(12), children: at(13) + at(14) };
}

const start = cpuSeconds();
const startedMs = Date.now();
afterAll(() => {
  const end = cpuSeconds();
  fs.appendFileSync(
    process.env.COBRO_CPU_REPORT!,
    `${JSON.stringify({
      file: expect.getState().testPath ?? 'unknown',
      self: +(end.self - start.self).toFixed(2),
      children: +(end.children - start.children).toFixed(2),
      wallMs: Date.now() - startedMs,
    })}\n`,
  );
});

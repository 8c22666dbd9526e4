// The memory settings `cobro serve` gives itself (src/platform/memory-flags.ts, decision 170), seen in a real serve
// process started as an operator starts it: PGlite's WebAssembly is never compiled by TurboFan (whose compile of
// PostgreSQL's parser alone took 600 MB), and the young generation does not grow under the start's allocations.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { limits } from '../../src/limits.ts';
import { serveV8Flags } from '../../src/platform/memory-flags.ts';
import { repoRoot, startServe } from '../support/cli.ts';
import { seedDataDir } from '../support/cli-in-process.ts';
import { freePort } from '../support/net.ts';

vi.setConfig({ testTimeout: 180_000 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-serve-memory-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('cobro serve memory settings', () => {
  it('keeps PGlite on Liftoff and the young generation at its initial size', async () => {
    const dataDir = path.join(dir, 'data');
    await seedDataDir(dataDir);
    const probeOut = path.join(dir, 'probe.json');
    const probe = path.join(repoRoot, 'test', 'support', 'v8-memory-probe.ts');
    const port = await freePort();
    const server = await startServe({ DATA_DIR: dataDir, PORT: String(port), COBRO_WORKERS: '0', NODE_OPTIONS: `--import=${probe}`, V8_MEMORY_PROBE_OUT: probeOut });
    try {
      // Queries after the start, each through PostgreSQL's parser.
      for (let i = 0; i < 20; i++) expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
    const trace = server.output();
    // The trace works (Liftoff compiles PGlite's functions as they are first called) and nothing is tiered up:
    // with tier-up on, this budget has TurboFan compile hundreds of functions during the start. (Once in about
    // twenty runs one function is compiled by TurboFan anyway; a function Liftoff cannot compile goes there.)
    expect(trace).toMatch(/using Liftoff/);
    const turbofan = trace.match(/[^\n]*using TurboFan[^\n]*/g) ?? [];
    expect(turbofan.length, turbofan.slice(0, 3).join('\n')).toBeLessThanOrEqual(2);
    const { newSpaceBytes } = JSON.parse(fs.readFileSync(probeOut, 'utf8')) as { newSpaceBytes: number };
    expect(newSpaceBytes).toBeLessThanOrEqual(8 * 1024 * 1024);
  });

  it('bounds the old generation by the limit in src/limits.ts', () => {
    expect(serveV8Flags).toContain(`--heap-growing-percent=${limits.v8HeapGrowingPercent}`);
  });
});

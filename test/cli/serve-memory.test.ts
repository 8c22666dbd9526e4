// The memory settings `cobro serve` gives itself (src/platform/memory-flags.ts, decision 170), seen in a real serve
// process started as an operator starts it: PGlite's WebAssembly is never compiled by TurboFan (whose compile of
// PostgreSQL's parser alone took 600 MB), the young generation does not grow under the start's allocations, and on
// glibc the process runs with fixed malloc thresholds (decision 210) under the pid it was started with.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { limits } from '../../src/limits.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { mallocTunables, serveV8Flags, startV8Flags, tunablesWithMalloc } from '../../src/platform/memory-flags.ts';
import { repoRoot, startServe } from '../support/cli.ts';
import { seedDataDir } from '../support/cli-in-process.ts';
import { freePort } from '../support/net.ts';

vi.setConfig({ testTimeout: 180_000 });
const onGlibc = typeof (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime === 'string';
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
    // Node's own small WebAssembly (such as its CommonJS export lexer) may compile before serve sets its flags, so
    // PGlite's module is told apart by its pointer: the module Liftoff compiled the most functions of. The trace
    // works (Liftoff compiles PGlite's functions as they are first called) and none of them is tiered up; with
    // tier-up on, this budget has TurboFan compile hundreds of them during the start.
    const compiles = [...trace.matchAll(/Compiled function (0x[0-9a-f]+)#\d+ using (Liftoff|TurboFan)[^\n]*/g)];
    const liftoffPerModule = new Map<string, number>();
    for (const [, module, tier] of compiles) if (tier === 'Liftoff') liftoffPerModule.set(module!, (liftoffPerModule.get(module!) ?? 0) + 1);
    const [pglite, liftoffCompiles] = [...liftoffPerModule].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    expect(liftoffCompiles).toBeGreaterThan(100);
    const turbofan = compiles.filter(([, module, tier]) => module === pglite && tier === 'TurboFan').map(([line]) => line);
    expect(turbofan.slice(0, 3)).toEqual([]);
    const probed = JSON.parse(fs.readFileSync(probeOut, 'utf8')) as {
      newSpaceBytes: number; pid: number; glibcTunables: string | null; compileCacheDir: string | null; v8WorkerThreads: number | null; packages: string[];
    };
    expect(probed.newSpaceBytes).toBeLessThanOrEqual(8 * 1024 * 1024);
    // What an embedded, sandbox server never uses stays unloaded (decision 240): PostgreSQL's driver, Transbank's
    // SDK (axios and its dependencies with it) and the CLI's parser; and the API docs until someone reads them
    // (decision 310): @fastify/swagger, Swagger UI, its file server and yaml.
    expect(probed.packages).toContain('@electric-sql/pglite');
    const unused = ['pg', 'transbank-sdk', 'axios', 'commander', '@fastify/swagger', '@fastify/swagger-ui', '@fastify/static', 'yaml'];
    expect(probed.packages.filter((name) => unused.includes(name))).toEqual([]);
    // Re-executed in place: the pid the launcher got is the serving process, which reads its TypeScript from the
    // compile cache and started with glibc's malloc thresholds.
    expect(probed.pid).toBe(server.child.pid);
    expect(probed.compileCacheDir).not.toBeNull();
    if (onGlibc) {
      // Started with the embedded database's V8 pool (decision 310): two worker threads, two malloc arenas.
      if (probed.v8WorkerThreads !== null) expect(probed.v8WorkerThreads).toBe(limits.v8PoolSizePglite);
      expect(probed.glibcTunables?.split(':')).toEqual(expect.arrayContaining(Object.entries(mallocTunables).map(([name, value]) => `${name}=${value}`)));
    }
  });

  it('starts a server on PostgreSQL with a fixed young generation of the size in src/limits.ts, one on PGlite with fewer V8 threads', () => {
    const mb = limits.v8SemiSpaceMbPostgres;
    expect(startV8Flags({ DATABASE_URL: 'postgres://db/cobro' })).toEqual([`--min-semi-space-size=${mb}`, `--max-semi-space-size=${mb}`]);
    // PGlite keeps V8's default young generation (its RSS is the tighter bound) and gets a smaller V8 pool.
    expect(startV8Flags({})).toEqual([`--v8-pool-size=${limits.v8PoolSizePglite}`]);
    expect(startV8Flags({ DATABASE_URL: '' })).toEqual([`--v8-pool-size=${limits.v8PoolSizePglite}`]);
    expect(limits.v8PoolSizePglite).toBeLessThan(4);
  });

  it('adds the malloc settings to GLIBC_TUNABLES, keeping what the operator set', () => {
    expect(mallocTunables).toEqual({
      'glibc.malloc.mmap_threshold': limits.mallocMmapThresholdBytes,
      'glibc.malloc.trim_threshold': limits.mallocTrimThresholdBytes,
    });
    expect(tunablesWithMalloc(undefined)).toBe('glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072');
    expect(tunablesWithMalloc('glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536'))
      .toBe('glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536:glibc.malloc.trim_threshold=131072');
    // Both already there (the re-executed process): nothing to do, so it never re-executes twice.
    expect(tunablesWithMalloc(tunablesWithMalloc(undefined)!)).toBeNull();
  });

  it('opens PGlite with the buffer cache of src/limits.ts and one backend slot', async () => {
    // Every MB of it is a MB of RSS from the start: PostgreSQL zeroes its shared memory whole, and PGlite's
    // WebAssembly heap never gives a page back.
    const handle = await openDatabase({ engine: 'pglite', dataDir: null });
    try {
      const show = async (name: string) => (await sql<Record<string, string>>`SHOW ${sql.raw(name)}`.execute(handle.db)).rows[0]?.[name];
      expect(await show('shared_buffers')).toBe(`${limits.pgliteSharedBuffersMb}MB`);
      expect(limits.pgliteSharedBuffersMb).toBeLessThanOrEqual(4);
      // Decision 240: sized for its one backend, not for 100 connections (4 of 16 MB of shared memory).
      expect(await show('max_connections')).toBe('1');
      expect(await show('max_wal_senders')).toBe('0');
      expect(await show('max_locks_per_transaction')).toBe(String(limits.pgliteMaxLocksPerTransaction));
      expect(await show('wal_init_zero')).toBe('off');
      const { rows: shm } = await sql<{ mb: number }>`SELECT sum(allocated_size) / (1024 * 1024) AS mb FROM pg_shmem_allocations`.execute(handle.db);
      expect(Number(shm[0]?.mb)).toBeLessThanOrEqual(limits.pgliteSharedBuffersMb + 4);
    } finally {
      await handle.close();
    }
  });

  it('bounds the old generation by the limit in src/limits.ts', () => {
    expect(serveV8Flags).toContain(`--heap-growing-percent=${limits.v8HeapGrowingPercent}`);
  });
});

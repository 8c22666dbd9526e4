// What bounds a serving process's memory, seen in a real serve process started as an operator starts it: PGlite's
// WebAssembly is never compiled by TurboFan (src/platform/db/pglite/liftoff.ts, decisions 170 and 410: its compile
// of PostgreSQL's parser alone took hundreds of MB), and nothing else: no re-exec, no Node or V8 flags on the
// command line, no malloc tunables (decision 410).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { limits } from '../../src/limits/index.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { repoRoot, startServe } from '../support/cli.ts';
import { seedDataDir } from '../support/cli-in-process.ts';
import { freePort } from '../support/net.ts';

vi.setConfig({ testTimeout: 180_000 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-serve-memory-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('cobro serve memory settings', () => {
  it('keeps PGlite on Liftoff and starts with no flags of its own, under the pid it was started with', async () => {
    const dataDir = path.join(dir, 'data');
    await seedDataDir(dataDir);
    const probeOut = path.join(dir, 'probe.json');
    const probe = path.join(repoRoot, 'test', 'support', 'v8-memory-probe.ts');
    const port = await freePort();
    const server = await startServe({
      DATA_DIR: dataDir,
      PORT: String(port),
      COBRO_WORKERS: '0',
      NODE_OPTIONS: `--import=${probe}`,
      V8_MEMORY_PROBE_OUT: probeOut,
    });
    try {
      // Queries after the start, each through PostgreSQL's parser.
      for (let i = 0; i < 20; i++)
        expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
    const trace = server.output();
    // Node's own small WebAssembly (such as its CommonJS export lexer) may compile before serve sets its flags, so
    // PGlite's module is told apart by its pointer: the module Liftoff compiled the most functions of. The trace
    // works (Liftoff compiles PGlite's functions as they are first called) and none of them is tiered up; with
    // tier-up on, this budget has TurboFan compile hundreds of them during the start.
    const compiles = [
      ...trace.matchAll(/Compiled function (0x[0-9a-f]+)#\d+ using (Liftoff|TurboFan)[^\n]*/g),
    ];
    const liftoffPerModule = new Map<string, number>();
    for (const [, module, tier] of compiles)
      if (tier === 'Liftoff')
        liftoffPerModule.set(module!, (liftoffPerModule.get(module!) ?? 0) + 1);
    const [pglite, liftoffCompiles] = [...liftoffPerModule].sort((a, b) => b[1] - a[1])[0] ?? [
      '',
      0,
    ];
    expect(liftoffCompiles).toBeGreaterThan(100);
    const turbofan = compiles
      .filter(([, module, tier]) => module === pglite && tier === 'TurboFan')
      .map(([line]) => line);
    expect(turbofan.slice(0, 3)).toEqual([]);
    const probed = JSON.parse(fs.readFileSync(probeOut, 'utf8')) as {
      pid: number;
      execArgv: string[];
      glibcTunables: string | null;
      compileCacheDir: string | null;
      v8WorkerThreads: number | null;
      packages: string[];
    };
    // What an embedded, sandbox server never uses stays unloaded (decision 240): PostgreSQL's driver, Transbank's
    // SDK (axios and its dependencies with it) and the CLI's parser; and the API docs until someone reads them
    // (decision 310): @fastify/swagger, Swagger UI, its file server and yaml.
    expect(probed.packages).toContain('@electric-sql/pglite');
    const unused = [
      'pg',
      'transbank-sdk',
      'axios',
      'commander',
      '@fastify/swagger',
      '@fastify/swagger-ui',
      '@fastify/static',
      'yaml',
    ];
    expect(probed.packages.filter((name) => unused.includes(name))).toEqual([]);
    // Not re-executed: the pid the launcher got is the serving process, started with no Node flags and no malloc
    // settings (decision 410), and it reads its TypeScript from the compile cache (bin/cobro.js).
    expect(probed.pid).toBe(server.child.pid);
    expect(probed.execArgv).toEqual([]);
    expect(probed.glibcTunables).toBeNull();
    expect(probed.compileCacheDir).not.toBeNull();
    // V8's own pool: more than the two threads decision 310 cut it to.
    if (probed.v8WorkerThreads !== null) expect(probed.v8WorkerThreads).toBeGreaterThan(2);
  });

  it('opens PGlite with the buffer cache of src/limits/database.ts and one backend slot', async () => {
    // Every MB of it is a MB of RSS from the start: PostgreSQL zeroes its shared memory whole, and PGlite's
    // WebAssembly heap never gives a page back.
    const handle = await openDatabase({ engine: 'pglite', dataDir: null });
    try {
      const show = async (name: string) =>
        (await sql<Record<string, string>>`SHOW ${sql.raw(name)}`.execute(handle.db)).rows[0]?.[
          name
        ];
      expect(await show('shared_buffers')).toBe(`${limits.pgliteSharedBuffersMb}MB`);
      expect(limits.pgliteSharedBuffersMb).toBeLessThanOrEqual(4);
      // Decision 240: sized for its one backend, not for 100 connections (4 of 16 MB of shared memory).
      expect(await show('max_connections')).toBe('1');
      expect(await show('max_wal_senders')).toBe('0');
      expect(await show('max_locks_per_transaction')).toBe(
        String(limits.pgliteMaxLocksPerTransaction),
      );
      expect(await show('wal_init_zero')).toBe('off');
      const { rows: shm } = await sql<{
        mb: number;
      }>`SELECT sum(allocated_size) / (1024 * 1024) AS mb FROM pg_shmem_allocations`.execute(
        handle.db,
      );
      expect(Number(shm[0]?.mb)).toBeLessThanOrEqual(limits.pgliteSharedBuffersMb + 4);
    } finally {
      await handle.close();
    }
  });
});

// The settings that bound a serving process's memory (decisions 170 and 210, docs/performance.md "Memory"). The
// process sets them itself, first thing in `cobro serve` and `cobro worker`, so every way of starting it (bin/cobro,
// `npm start`, the container, the bench) gets them and no launcher carries a copy. V8 flags read while it runs are
// set in place; the heap's size limits (--max-semi-space-size, --max-old-space-size) are fixed when the process
// starts, so the young generation is held by its growth factor instead. glibc reads its malloc settings only when a
// process starts: for those the process re-executes itself once (same pid) with them in its environment, and with
// the V8 start flags of its engine (startV8Flags, decisions 300 and 310) on its command line.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { limits } from '../limits.ts';

export const serveV8Flags: readonly string[] = [
  // PGlite's WebAssembly stays on V8's baseline compiler (Liftoff). With tier-up, the first hot queries make
  // TurboFan optimise PostgreSQL's SQL parser (raw_parser, 105 KB of code), which takes 600 MB for one to three
  // seconds and leaves the process 200-300 MB larger. Both flags: --liftoff-only set at run time does not turn
  // off dynamic tiering (flag implications are applied only at start).
  '--no-wasm-dynamic-tiering',
  '--no-wasm-tier-up',
  // The young generation keeps its initial 4 MB instead of growing to 128 MB under load.
  '--semi-space-growth-factor=1',
  // After each full collection the old generation may grow by this much before the next, instead of V8's
  // factor of up to 4 (garbage of a busy minute kept around).
  `--heap-growing-percent=${limits.v8HeapGrowingPercent}`,
];

/** Before the database opens: PGlite's WebAssembly module is compiled with the flags in force when it loads. */
export function applyServeV8Flags(): void {
  v8.setFlagsFromString(serveV8Flags.join(' '));
}

// Fixed thresholds also turn off glibc's dynamic ones: after PGlite's 9 MB module bytes are freed, glibc would
// serve every later block under 9 MB from its arenas, and a busy minute's freed blocks would stay resident there.
export const mallocTunables: Readonly<Record<string, number>> = {
  'glibc.malloc.mmap_threshold': limits.mallocMmapThresholdBytes,
  'glibc.malloc.trim_threshold': limits.mallocTrimThresholdBytes,
};

/** bin/cobro.js: started through it, the process compiles its TypeScript from Node's compile cache and never loads
 *  Node's type stripper (swc in WebAssembly, about 10 MB resident). */
export const cobroEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/cobro.js');

/** GLIBC_TUNABLES with the serving process's malloc settings added, or null when it already has them all. A setting
 *  the operator gave keeps the operator's value. */
export function tunablesWithMalloc(current: string | undefined): string | null {
  const given = new Set((current ?? '').split(':').filter(Boolean).map((entry) => entry.split('=')[0]));
  const missing = Object.entries(mallocTunables).filter(([name]) => !given.has(name)).map(([name, value]) => `${name}=${value}`);
  if (missing.length === 0) return null;
  return [...(current ? [current] : []), ...missing].join(':');
}

function runsOnGlibc(): boolean {
  if (process.platform !== 'linux') return false;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return typeof header?.glibcVersionRuntime === 'string';
}

/**
 * First thing in `cobro serve` and `cobro worker`, before anything is opened or allocated: on glibc, replaces this
 * process (same pid, arguments, environment and stdio, so supervisors and signals see no difference) with one that
 * starts with the malloc settings and startV8Flags, through `entry` (bin/cobro.js for the CLI). Returns when there
 * is nothing to do: not glibc, already set (the re-executed process itself), or a Node without `process.execve`.
 */
export function reexecWithMallocTunables(entry: string): void {
  const tunables = tunablesWithMalloc(process.env.GLIBC_TUNABLES);
  const missingFlags = startV8Flags(process.env).filter((flag) => !process.execArgv.includes(flag));
  if ((tunables === null && missingFlags.length === 0) || typeof process.execve !== 'function' || !runsOnGlibc()) return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...missingFlags, entry, ...process.argv.slice(2)], {
    ...process.env, GLIBC_TUNABLES: tunables ?? process.env.GLIBC_TUNABLES ?? '',
  });
}

/**
 * V8 flags only a process's start can set, for the re-exec above. On PostgreSQL (decision 300) the young generation
 * is fixed at `limits.v8SemiSpaceMbPostgres` per semi-space instead of the default start size that
 * `--semi-space-growth-factor=1` holds: a request's garbage is collected in fewer, no longer scavenges, about 5% of
 * a payout's or a create's CPU, for about 13 MB of RSS. The embedded database keeps the default, its RSS being the
 * tighter bound, and runs V8's background work (concurrent marking, compile jobs) on `limits.v8PoolSizePglite`
 * threads instead of Node's four (decision 310): each of them keeps a malloc arena of its own, and the two fewer
 * held 4-6 MB less under the bench's load, at no CPU per request that showed.
 */
export function startV8Flags(env: Readonly<Record<string, string | undefined>>): readonly string[] {
  if ((env.DATABASE_URL ?? '') === '') return [`--v8-pool-size=${limits.v8PoolSizePglite}`];
  const mb = limits.v8SemiSpaceMbPostgres;
  return [`--min-semi-space-size=${mb}`, `--max-semi-space-size=${mb}`];
}

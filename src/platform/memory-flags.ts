// The V8 settings that bound a serving process's memory (decision 170, docs/performance.md "Memory"). The process
// sets them itself, first thing in `cobro serve` and `cobro worker`, so every way of starting it (bin/cobro,
// `npm start`, the container, the bench) gets them and no launcher carries a copy. Only flags V8 reads while it
// runs work this way: the heap's size limits (--max-semi-space-size, --max-old-space-size) are fixed when the
// process starts, so the young generation is held by its growth factor instead.
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

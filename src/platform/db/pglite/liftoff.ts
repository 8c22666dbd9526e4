// PGlite's WebAssembly stays on V8's baseline compiler, Liftoff (decisions 170 and 410). With tier-up, the first hot
// queries make TurboFan optimise PostgreSQL's SQL parser (raw_parser, 105 KB of code) and more: a migrated database's
// start went from 198 to 454 MB of RSS (peak 199 → 666 MB), far past the 256 MB target, for queries no faster that
// showed. Set in the running process just before PGlite's module compiles, not on the command line: no re-exec, no
// launcher carries it. Both flags, since --liftoff-only set at run time does not turn off dynamic tiering (flag
// implications are applied only when V8 starts). The one V8 setting Cobro keeps; nothing else of the heap is tuned.
import v8 from 'node:v8';

const liftoffOnlyFlags = ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up'] as const;

export function keepWasmOnLiftoff(): void {
  v8.setFlagsFromString(liftoffOnlyFlags.join(' '));
}

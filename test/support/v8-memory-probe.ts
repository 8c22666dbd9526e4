// Loaded with `node --import` into a child `cobro serve`: makes every WebAssembly function V8 runs hot at once
// (a tiering budget of 1) and traces what compiles it, so a test sees whether TurboFan ever compiles PGlite; at
// exit writes the pid, the command line's Node flags, glibc's settings, the compile cache, V8's worker threads
// (Linux) and the packages the process loaded to $V8_MEMORY_PROBE_OUT. Nothing from a worker thread (the readiness
// watchdog's), whose exit is not the process's.
// Runs before the serve code, which may then set its own flags over these.
import fs from 'node:fs';
import module from 'node:module';
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

v8.setFlagsFromString('--wasm-tiering-budget=1 --trace-wasm-compilation-times');
const packages = new Set<string>();
module.registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url)?.[1];
    if (name !== undefined) packages.add(name);
    return resolved;
  },
});
/** Threads V8's platform runs its background work on (Node names them), or null where /proc is not there. */
function v8WorkerThreads(): number | null {
  try {
    return fs
      .readdirSync('/proc/self/task')
      .filter((id) => fs.readFileSync(`/proc/self/task/${id}/comm`, 'utf8').trim() === 'V8Worker')
      .length;
  } catch {
    return null;
  }
}
process.on('exit', () => {
  const out = process.env.V8_MEMORY_PROBE_OUT;
  if (out !== undefined && isMainThread) {
    fs.writeFileSync(
      out,
      JSON.stringify({
        pid: process.pid,
        execArgv: process.execArgv,
        glibcTunables: process.env.GLIBC_TUNABLES ?? null,
        compileCacheDir: module.getCompileCacheDir() ?? null,
        v8WorkerThreads: v8WorkerThreads(),
        packages: [...packages].sort(),
      }),
    );
  }
});

#!/usr/bin/env node
// The CLI's entry: TypeScript run by Node's own type stripping (Node 24, pinned as a dev dependency; bin/cobro runs
// it). The compile cache keeps the stripped and compiled modules between runs, which halves a start's CPU time.
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';

if (process.env.NODE_COMPILE_CACHE === undefined) {
  let home = '';
  try {
    home = os.homedir();
  } catch {
    /* no home directory: run without the cache */
  }
  const base = process.env.XDG_CACHE_HOME || (home === '' ? '' : path.join(home, '.cache'));
  if (base !== '') module.enableCompileCache?.(path.join(base, 'cobro', 'node-compile-cache'));
}
await import('../src/cli/main.ts');

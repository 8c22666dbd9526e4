import os from 'node:os';
import { defineConfig } from 'vitest/config';

// Test files at once (docs/testing.md). Vitest's default is one fewer than the cores, so a 2-core machine ran one
// file at a time although most files wait on a child process, a socket or a timer for part of their time; two at
// once keep both cores busy (figures in docs/testing.md). Bigger machines keep Vitest's default.
const testFilesAtOnceMax = Math.max(2, os.availableParallelism() - 1);
// COBRO_CPU_REPORT=/tmp/cpu.jsonl npm test: each file's CPU seconds, for the breakdown in docs/testing.md.
const cpuReport = process.env.COBRO_CPU_REPORT !== undefined && process.env.COBRO_CPU_REPORT !== '';

// Files that start only embedded servers (their children never get DATABASE_URL: test/support/cli.ts childEnv)
// test the same thing on both passes of CI; the PostgreSQL pass leaves them to the PGlite pass.
const freshStarts = 'test/cli/fresh-starts.test.ts';
const embeddedOnly = [
  'test/cli/ready-watchdog.test.ts',
  'test/cli/serve-memory.test.ts',
  'test/cli/first-start.test.ts',
  'test/reliability/data-dir-permissions.test.ts',
];
const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser/**', freshStarts, ...(onPostgres ? embeddedOnly : [])],
          globalSetup: ['test/support/global-setup.ts'],
          pool: 'forks',
          // A worker process serves file after file (decision 610): the imports, PGlite's module and V8's compiled
          // code are paid once a worker, not once a file. Each file still gets its own database; nothing in src/
          // keeps app state in module scope (test/tidy.test.ts) and no test file stubs a module, a global or the
          // environment (test/tidy.test.ts), so a file finds nothing of the one before it.
          isolate: false,
          maxWorkers: testFilesAtOnceMax,
          setupFiles: cpuReport ? ['test/support/cpu-probe.ts'] : [],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      // The 20 fresh starts after the rest, alone (decision 610): about 100 CPU seconds of PGlite's initdb that take
      // under a minute on two cores of their own, and held every file beside them back when they shared them.
      ...(onPostgres
        ? []
        : [
            {
              test: {
                name: 'unit-starts',
                include: [freshStarts],
                pool: 'forks' as const,
                sequence: { groupOrder: 1 },
                setupFiles: cpuReport ? ['test/support/cpu-probe.ts'] : [],
                testTimeout: 30_000,
              },
            },
          ]),
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          pool: 'forks',
          // As the unit project (decision 780): a worker serves file after file, two files at once on 2 cores. Each
          // file still has its own server, database and Chromium; most of a file's time is waiting on Chromium and
          // its server, so a second file fills the other core.
          isolate: false,
          maxWorkers: testFilesAtOnceMax,
          setupFiles: cpuReport ? ['test/support/cpu-probe.ts'] : [],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});

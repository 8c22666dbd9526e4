// Operator commands run inside the test process (see runInProcess), next to ./cli.ts's real processes.
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { inject } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.ts';
import { resolve as resolveCommand, runResolved } from '../../src/cli/dispatch.ts';
import { loadConfig } from '../../src/platform/process/config.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import type { CliResult } from './cli.ts';
import type { AppContext } from '../../src/platform/context.ts';

/**
 * The command path of `cobro <command>` run inside the test process: the same argument resolution and command code
 * as main.ts, on a context opened the way main.ts opens it (this data dir, its secret key, migrations applied), so
 * a test pays for one database open instead of one Node process and one database open per call. The real process
 * (config errors, exit codes, the operator socket) stays covered by runCli.
 */
export async function runInProcess(
  args: readonly string[],
  runtime: Runtime | null,
): Promise<CliResult> {
  return runOnContext(args, runtime?.ctx ?? null);
}

/** The same on a context a test already holds (a test app's `t.ctx`). */
export async function runOnContext(
  args: readonly string[],
  ctx: AppContext | null,
): Promise<CliResult> {
  const resolved = resolveCommand(args);
  if (!('command' in resolved))
    return { code: resolved.exitCode, stdout: resolved.stdout, stderr: resolved.stderr };
  if (resolved.command.needsDb && ctx === null)
    throw new Error(`cobro ${args.join(' ')} needs a database`);
  const output = await runResolved(resolved, resolved.command.needsDb ? ctx : null);
  return { code: output.exitCode, stdout: output.stdout, stderr: output.stderr };
}

/** Opens the runtime an operator command in `env` would open (the embedded database in DATA_DIR). */
export async function openCliRuntime(env: Record<string, string>): Promise<Runtime> {
  const loaded = loadConfig({ LOG_LEVEL: 'silent', ...env });
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  return openRuntime(loaded.config, { logger: pino({ level: 'silent' }) });
}

/**
 * Fills an empty DATA_DIR with the migrated database of the test run's snapshot, so a command's first process
 * skips creating and migrating a database (the slowest part of a first start on PGlite). Tests that prove a first
 * start on an empty directory (`cobro serve`) leave their directory empty. A run on PostgreSQL has no PGlite
 * snapshot: the directory stays empty and the command creates the database itself.
 */
export async function seedDataDir(dataDir: string): Promise<void> {
  const snapshotPath = inject('pgliteSnapshotPath');
  if (snapshotPath === '') return;
  const handle = await openDatabase({
    engine: 'pglite',
    dataDir,
    loadDataDir: new Blob([fs.readFileSync(snapshotPath)]),
  });
  await handle.close();
}

/**
 * seedDataDir for a file that fills several DATA_DIRs: the snapshot is loaded once, into `root/seeded` (a directory
 * the file removes with its root), and each DATA_DIR is a copy of that closed database's files: about 0.5 s of file
 * copying instead of booting PGlite on the snapshot again (about 4 s of wall time and 1.8 CPU s at load 9).
 * Each DATA_DIR is still a database of its own.
 */
export function dataDirSeeder(root: string): (dataDir: string) => Promise<void> {
  const seeded = path.join(root, 'seeded');
  let ready: Promise<void> | null = null;
  return async (dataDir) => {
    if (inject('pgliteSnapshotPath') === '') return;
    ready ??= (async () => {
      fs.mkdirSync(seeded, { recursive: true });
      await seedDataDir(seeded);
    })();
    await ready;
    fs.cpSync(seeded, dataDir, { recursive: true });
  };
}

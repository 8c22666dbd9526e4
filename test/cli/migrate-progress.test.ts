// Decision 1022: on the embedded database a long migration statement runs on the main thread and printed nothing, so
// it read as a hang. `cobro migrate` now writes each migration's name as it begins and its time as it ends on stderr
// (stdout keeps its one summary line), and a start that migrates logs the same two lines per migration.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationNames } from '../../src/platform/db/migrate.ts';
import { openRuntime } from '../../src/runtime.ts';
import { testConfig } from '../support/app.ts';
import { runCli } from '../support/cli.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-migrate-progress-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Two lines per migration, in order: its name as it begins, its time as it ends. */
async function expectProgress(lines: readonly string[]): Promise<void> {
  const names = await migrationNames();
  expect(lines).toHaveLength(2 * names.length);
  names.forEach((name, i) => {
    expect(lines[2 * i]).toBe(`migration ${name}: started`);
    expect(lines[2 * i + 1]).toMatch(new RegExp(`^migration ${name}: done in \\d+ ms$`));
  });
}

describe('migration progress', () => {
  it('cobro migrate prints each migration as it begins and ends, on stderr', {
    timeout: 180_000,
  }, async () => {
    const run = await runCli(['migrate'], { DATA_DIR: path.join(root, 'cli') }, 150_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`applied: ${(await migrationNames()).join(', ')}\n`);
    await expectProgress(run.stderr.split('\n').filter((l) => l.startsWith('migration ')));
    expect(run.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('migration '))).toEqual(
      [],
    );
  });

  it('a start that migrates logs the same lines', { timeout: 180_000 }, async () => {
    const messages: string[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => void messages.push((JSON.parse(line) as { msg: string }).msg) },
    );
    const runtime = await openRuntime(
      testConfig({ DATA_DIR: path.join(root, 'start'), COBRO_MODE: 'sandbox' }),
      { logger },
    );
    await runtime.close();
    await expectProgress(messages.filter((m) => m.startsWith('migration ')));
    const first = messages.findIndex((m) => m.startsWith('migration '));
    expect(messages[first - 1]).toMatch(/^migrating the database: \d+ migration\(s\) to apply$/);
  });
});

// The readiness watchdog (src/platform/process/ready-watchdog.ts, decision 410): a `cobro serve` whose main thread
// is stuck before it serves (COBRO_TEST_HANG_AT_START blocks it in Atomics.wait, where no timer of its own can run,
// as in the deadlock of Node issue 54918) still says "not ready after N s" on stderr and exits non-zero, so a
// supervisor restarts it; a start that does get ready is not touched by it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/platform/process/config.ts';
import { embeddedDatabaseExists } from '../../src/platform/db/database.ts';
import { configLimits } from '../../src/limits/index.ts';
import { notReadyMessage } from '../../src/platform/process/ready-watchdog.ts';
import { runCli, startServe } from '../support/cli.ts';
import { seedDataDir } from '../support/cli-in-process.ts';
import { freePort } from '../support/net.ts';

vi.setConfig({ testTimeout: 120_000 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-watchdog-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('readiness watchdog', () => {
  it('ends a start whose main thread hangs, with "not ready after N s" and a non-zero exit', async () => {
    const started = Date.now();
    const result = await runCli(
      ['serve'],
      {
        DATA_DIR: path.join(dir, 'hung'),
        PORT: String(await freePort()),
        READY_TIMEOUT_MS: '1500',
        COBRO_TEST_HANG_AT_START: '1',
      },
      60_000,
    );
    expect(result.stderr).toContain('cobro: not ready after 1.5 s\n');
    // Killed (SIGKILL: the stuck main thread runs no handler), never a clean exit.
    expect(result.code).not.toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  });

  it('leaves a start that gets ready alone, past its timeout', async () => {
    const port = await freePort();
    const dataDir = path.join(dir, 'ready');
    // A migrated database, so that the start is well within its timeout even on a busy machine (the suite's
    // snapshot where there is one, that is on PGlite; else `cobro migrate` makes it).
    await seedDataDir(dataDir);
    if (!embeddedDatabaseExists(dataDir))
      expect((await runCli(['migrate'], { DATA_DIR: dataDir }, 120_000)).code).toBe(0);
    const spawnedAt = Date.now();
    const server = await startServe({
      DATA_DIR: dataDir,
      PORT: String(port),
      COBRO_WORKERS: '0',
      READY_TIMEOUT_MS: '10000',
    });
    try {
      await new Promise((r) => setTimeout(r, Math.max(0, spawnedAt + 11_000 - Date.now())));
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      expect(server.child.exitCode).toBeNull();
      expect(server.output()).not.toContain('not ready');
    } finally {
      await server.stop();
    }
  });

  it('reads READY_TIMEOUT_MS, a minute by default', () => {
    const base = { DATA_DIR: dir };
    expect(loadConfig(base)).toMatchObject({ ok: true, config: { readyTimeoutMs: 60_000 } });
    expect(configLimits.readyTimeoutMsDefault).toBe(60_000);
    expect(loadConfig({ ...base, READY_TIMEOUT_MS: '2500' })).toMatchObject({
      ok: true,
      config: { readyTimeoutMs: 2500 },
    });
    expect(loadConfig({ ...base, READY_TIMEOUT_MS: 'soon' })).toMatchObject({ ok: false });
    expect(loadConfig({ ...base, READY_TIMEOUT_MS: '10' })).toMatchObject({ ok: false });
    expect(notReadyMessage(60_000)).toBe('cobro: not ready after 60 s\n');
  });
});

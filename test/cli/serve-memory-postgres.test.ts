// A `cobro serve` on PostgreSQL loads no embedded engine: PGlite is imported when an embedded database opens, as
// `pg` is when a PostgreSQL one does (decisions 240 and 575). Its own file: test/cli/serve-memory.test.ts starts
// only embedded servers and is left out of the PostgreSQL pass (vitest.config.ts).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { repoRoot, startServe } from '../support/cli.ts';
import { freePort } from '../support/net.ts';

vi.setConfig({ testTimeout: 180_000 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-serve-memory-pg-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.runIf(process.env.DATABASE_URL)('cobro serve memory on PostgreSQL', () => {
  it('never loads PGlite: the embedded engine is imported only when an embedded database opens (decision 575)', async () => {
    const adminUrl = process.env.DATABASE_URL!;
    const name = `cobro_t_mem_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const probeOut = path.join(dir, 'probe-postgres.json');
    try {
      const u = new URL(adminUrl);
      u.pathname = `/${name}`;
      const port = await freePort();
      const server = await startServe({
        DATABASE_URL: u.toString(),
        DATA_DIR: path.join(dir, 'data-postgres'),
        PORT: String(port),
        COBRO_WORKERS: '0',
        NODE_OPTIONS: `--import=${path.join(repoRoot, 'test', 'support', 'v8-memory-probe.ts')}`,
        V8_MEMORY_PROBE_OUT: probeOut,
      });
      try {
        expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
    const probed = JSON.parse(fs.readFileSync(probeOut, 'utf8')) as { packages: string[] };
    expect(probed.packages).toContain('pg');
    expect(probed.packages).not.toContain('@electric-sql/pglite');
  });
});

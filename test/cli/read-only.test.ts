// Commands that only read (`ledger verify`, `accounts list|show`, `notifications list|show`) never migrate or
// otherwise change the database they are pointed at (issue 16 point 6): no database or key file is created, a
// schema that is behind is refused, and every transaction they run is read-only.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { allCommands } from '../../src/cli/all-commands.ts';
import { loadConfig } from '../../src/platform/process/config.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { openRuntime } from '../../src/runtime.ts';
import { runCli } from '../support/cli.ts';
import { dataDirSeeder, openCliRuntime, runInProcess } from '../support/cli-in-process.ts';

vi.setConfig({ testTimeout: 240_000 });
const dirs: string[] = [];
function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-ro-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const seedDataDir = dataDirSeeder(dataDir());

function configOf(env: Record<string, string>) {
  const loaded = loadConfig({ LOG_LEVEL: 'silent', ...env });
  if (!loaded.ok) throw new Error(loaded.errors.join('; '));
  return loaded.config;
}
const quiet = pino({ level: 'silent' });
const appliedOf = async (dir: string) => {
  const handle = await openDatabase({ engine: 'pglite', dataDir: dir });
  try {
    return (
      await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(
        handle.db,
      )
    ).rows.map((r) => r.name);
  } finally {
    await handle.close();
  }
};

describe('read-only commands', () => {
  it('are exactly the commands that only read', () => {
    expect(
      allCommands()
        .filter((c) => c.readOnly === true)
        .map((c) => c.name)
        .sort(),
    ).toEqual([
      'accounts list',
      'accounts show',
      'audit list',
      'audit verify',
      'keys list',
      'ledger verify',
      'notifications list',
      'notifications show',
      'plans list',
      'plans show',
      'refunds list',
      'refunds show',
      'subscriptions list',
      'subscriptions removals',
      'subscriptions show',
      'users list',
    ]);
  });

  it('refuse an empty DATA_DIR without creating a database or a key in it', async () => {
    const dir = path.join(dataDir(), 'none');
    const r = await runCli(['accounts', 'list'], { DATA_DIR: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `cobro: no Cobro database in ${dir} (DATA_DIR): this command only reads and creates none; \`cobro migrate\` or \`cobro serve\` creates it\n`,
    );
    expect(fs.existsSync(dir)).toBe(false);
  });

  // Embedded-database cases: in the suite's PostgreSQL run the CLI follows DATABASE_URL, covered by the block below.
  it.skipIf(process.env.DATABASE_URL !== undefined)(
    'refuse a database whose schema is behind, leaving it behind, and read one that is current',
    async () => {
      const dir = dataDir();
      await seedDataDir(dir);
      const all = await appliedOf(dir);
      const last = all[all.length - 1]!;
      const handle = await openDatabase({ engine: 'pglite', dataDir: dir });
      await sql`DELETE FROM kysely_migration WHERE name = ${last}`.execute(handle.db);
      await handle.close();

      const behind = await runCli(['ledger', 'verify'], { DATA_DIR: dir });
      expect(behind.code).toBe(1);
      expect(behind.stderr).toContain(
        `is behind this cobro: 1 migration(s) not applied (${last}); this command only reads and never migrates: run \`cobro migrate\` first`,
      );
      expect(await appliedOf(dir)).toEqual(all.slice(0, -1));
      expect(fs.existsSync(path.join(dir, 'secret.key'))).toBe(false);

      // Put back as the migration left it; the read-only runtime opens it then.
      const fix = await openDatabase({ engine: 'pglite', dataDir: dir });
      await sql`INSERT INTO kysely_migration (name, timestamp) VALUES (${last}, ${'2026-01-01T00:00:00.000Z'})`.execute(
        fix.db,
      );
      await fix.close();
      const clean = await runCli(['ledger', 'verify'], { DATA_DIR: dir });
      expect(clean.stderr).toBe('');
      expect(clean.stdout).toMatch(/^ledger clean: \d+ accounts, \d+ journals balance\n$/);
      expect(fs.existsSync(path.join(dir, 'secret.key'))).toBe(false);
    },
  );

  it.skipIf(process.env.DATABASE_URL !== undefined)(
    'run every read-only transaction read-only and use only an existing secret key',
    async () => {
      const dir = dataDir();
      await seedDataDir(dir);
      // A keyless read: listing no accounts needs no key, and none is created.
      const keyless = await openRuntime(configOf({ DATA_DIR: dir }), {
        readOnly: true,
        logger: quiet,
      });
      try {
        expect((await runInProcess(['accounts', 'list', '--json'], keyless)).stdout).toBe('[]\n');
        expect(() => keyless.ctx.secrets.open('v1.a.b.c')).toThrow(
          /no secret key: COBRO_SECRET_KEY is unset and .*secret\.key does not exist/,
        );
      } finally {
        await keyless.close();
      }
      expect(fs.existsSync(path.join(dir, 'secret.key'))).toBe(false);

      const writable = await openCliRuntime({ DATA_DIR: dir });
      const created = JSON.parse(
        (await runInProcess(['accounts', 'create', '--name', 'Solo lectura', '--json'], writable))
          .stdout,
      ) as Record<string, string>;
      await writable.close();

      const ro = await openRuntime(configOf({ DATA_DIR: dir }), { readOnly: true, logger: quiet });
      try {
        const shown = JSON.parse(
          (await runInProcess(['accounts', 'show', created.id!, '--json'], ro)).stdout,
        ) as Record<string, string>;
        expect(shown.private_token).toBe(created.private_token);
        expect((await runInProcess(['accounts', 'list'], ro)).stdout).toContain('Solo lectura');
        expect((await runInProcess(['notifications', 'list'], ro)).stdout).toBe(
          'no notifications\n',
        );
        expect((await runInProcess(['ledger', 'verify'], ro)).code).toBe(0);
        await expect(sql`UPDATE accounts SET name = 'x'`.execute(ro.ctx.db)).rejects.toThrow(
          /read-only transaction/,
        );
        await expect(
          ro.ctx.db.transaction().execute((tx) => sql`DELETE FROM accounts`.execute(tx)),
        ).rejects.toThrow(/read-only transaction/);
      } finally {
        await ro.close();
      }
    },
  );
});

describe.runIf(process.env.DATABASE_URL)('read-only commands on PostgreSQL', () => {
  it('refuse an unmigrated database, then read a migrated one in read-only transactions', async () => {
    const adminUrl = process.env.DATABASE_URL!;
    const name = `cobro_t_ro_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      const u = new URL(adminUrl);
      u.pathname = `/${name}`;
      const config = configOf({ DATABASE_URL: u.toString(), DATA_DIR: dataDir() });
      await expect(openRuntime(config, { readOnly: true, logger: quiet })).rejects.toThrow(
        /is behind this cobro: \d+ migration\(s\) not applied \(0001-foundation, /,
      );
      // Nothing was created: not even the migrations' bookkeeping table.
      const probe = new pg.Client({ connectionString: u.toString() });
      await probe.connect();
      const table = await probe.query(`SELECT to_regclass('kysely_migration')::text AS name`);
      await probe.end();
      expect(table.rows[0].name).toBeNull();
      const migrated = await openRuntime(config, { logger: quiet });
      await migrated.close();
      const ro = await openRuntime(config, { readOnly: true, logger: quiet });
      try {
        expect((await runInProcess(['ledger', 'verify'], ro)).code).toBe(0);
        await expect(sql`UPDATE accounts SET name = 'x'`.execute(ro.ctx.db)).rejects.toThrow(
          /read-only transaction/,
        );
      } finally {
        await ro.close();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});

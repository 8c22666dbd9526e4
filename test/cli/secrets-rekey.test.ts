// `cobro secrets rekey` (decision 935): every sealed secret opened with the old key and sealed under the new one in
// one transaction; refused, changing nothing, when a value does not open or another Cobro process holds the old key;
// a real server started on the new key afterwards serves the same tokens; the old key no longer opens the database.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecretBox, type SecretBox } from '../../src/platform/auth/secrets.ts';
import { sealedColumns } from '../../src/platform/auth/rekey.ts';
import type { Runtime } from '../../src/runtime.ts';
import { opsSocketPath, runThroughServer } from '../../src/cli/ops-socket.ts';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { dataDirSeeder, openCliRuntime, runInProcess } from '../support/cli-in-process.ts';
import { cloneTestDatabase, type TestDatabaseHandle } from '../support/database.ts';
import { freePort } from '../support/net.ts';
import { call, demoCredentials } from '../reliability/load.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-rekey-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const seedDataDir = dataDirSeeder(root);

const oldKeyHex = 'ab'.repeat(32);
const newKeyHex = crypto.randomBytes(32).toString('hex');
const oldBox = createSecretBox(Buffer.from(oldKeyHex, 'hex'));
const newBox = createSecretBox(Buffer.from(newKeyHex, 'hex'));

function keyFile(name: string, text: string): string {
  const file = path.join(root, name);
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}
const newKeyFile = keyFile('new.key', `${newKeyHex}\n`);

/** A fresh database (PGlite in its own DATA_DIR, or a PostgreSQL clone) and the environment that opens it. */
async function freshDatabase(name: string, key = oldKeyHex) {
  const dataDir = path.join(root, name);
  fs.mkdirSync(dataDir);
  const clone: TestDatabaseHandle | null = onPostgres ? await cloneTestDatabase() : null;
  if (clone === null) await seedDataDir(dataDir);
  const env: Record<string, string> = {
    ...(clone?.url !== undefined ? { DATABASE_URL: clone.url } : {}),
    DATA_DIR: dataDir,
    COBRO_MODE: 'sandbox',
    COBRO_SECRET_KEY: key,
  };
  return { env, close: async () => clone?.close() };
}

/** Every sealed value of the database opened with `box`, by `table.column:key`; null for one it cannot open. */
async function openedWith(runtime: Runtime, box: SecretBox): Promise<Map<string, string | null>> {
  const opened = new Map<string, string | null>();
  for (const { table, key, column, prefix, onlyKey } of sealedColumns) {
    const rows = await sql<{ key: string; value: string }>`
      SELECT ${sql.ref(key)} AS key, ${sql.ref(column)} AS value FROM ${sql.table(table)}
      WHERE ${sql.ref(column)} LIKE ${`${prefix}%`}
        AND ${onlyKey === undefined ? sql`TRUE` : sql`${sql.ref(key)} = ${onlyKey}`}`.execute(
      runtime.ctx.db,
    );
    for (const row of rows.rows) {
      let plain: string | null;
      try {
        plain = box.open(row.value.slice(prefix.length));
      } catch {
        plain = null;
      }
      opened.set(`${table}.${column}:${row.key}`, plain);
    }
  }
  return opened;
}

/** An account with a scoped key, Webpay and Fintoc settings and the checkout link key: a secret in most columns. */
async function sealSome(runtime: Runtime): Promise<string> {
  const created = await runInProcess(
    ['accounts', 'create', '--name', 'Sellada', '--json'],
    runtime,
  );
  expect(created.code, created.stderr).toBe(0);
  const accountId = (JSON.parse(created.stdout) as { id: string }).id;
  const commands = [
    ['keys', 'create', '--account', accountId, '--scope', 'read', '--name', 'informes'],
    // The retired webhook secret, kept sealed for its grace (decision 1000).
    ['accounts', 'rotate', accountId, '--only', 'webhook-secret', '--webhook-grace-hours', '24'],
    [
      'accounts',
      'set-processor',
      accountId,
      '--webpay-commerce-code',
      '597055555532',
      '--webpay-api-key',
      'clave-webpay',
      '--environment',
      'integration',
    ],
  ];
  for (const argv of commands) {
    const run = await runInProcess(argv, runtime);
    expect(run.code, run.stderr).toBe(0);
  }
  await runtime.ctx.db
    .insertInto('cobro_meta')
    .values({ key: 'checkout_link_key', value: runtime.ctx.secrets.seal('00'.repeat(32)) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return accountId;
}

describe('cobro secrets rekey', () => {
  it('seals every secret again under the new key, keeping what each holds, with an audit row', async () => {
    const db = await freshDatabase('rekeyed');
    const runtime = await openCliRuntime(db.env);
    try {
      // Every column named *_enc is listed, so a migration that adds one cannot leave it under the old key.
      const columns = await sql<{ name: string }>`
        SELECT table_name || '.' || column_name AS name FROM information_schema.columns
        WHERE table_schema = current_schema() AND column_name LIKE '%\\_enc' ORDER BY name`.execute(
        runtime.ctx.db,
      );
      const listed = new Set(sealedColumns.map((c) => `${c.table}.${c.column}`));
      expect(columns.rows.map((r) => r.name).filter((name) => !listed.has(name))).toEqual([]);
      expect(columns.rows.length).toBeGreaterThan(8);

      await sealSome(runtime);
      const before = await openedWith(runtime, oldBox);
      // The Webpay API key is sealed twice: the account's current keys and the keys its sales name (decision 996);
      // the webhook secret too, the current one and the one a rotation retired (decision 1000).
      expect(before.size).toBe(9);
      expect(
        [...before.keys()].filter((k) => k.startsWith('accounts.webhook_secret')),
      ).toHaveLength(2);
      expect([...before.values()].filter((v) => v === null)).toEqual([]);

      const run = await runInProcess(['secrets', 'rekey', '--new-key-file', newKeyFile], runtime);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(
        `${before.size} secrets sealed again under the new key: start every process with COBRO_SECRET_KEY set to the new key\n`,
      );
      expect(await openedWith(runtime, newBox)).toEqual(before);
      const underOld = await openedWith(runtime, oldBox);
      expect([...underOld.values()].filter((v) => v !== null)).toEqual([]);
      const audit = await runtime.ctx.db
        .selectFrom('audit_log')
        .select(['action', 'actor_kind'])
        .where('action', '=', 'cobro secrets rekey')
        .execute();
      expect(audit).toEqual([{ action: 'cobro secrets rekey', actor_kind: 'operator' }]);
    } finally {
      await runtime.close();
    }
    // The old key no longer opens the database (decision 690); the new one does.
    await expect(openCliRuntime(db.env)).rejects.toThrow(/does not open the secrets/);
    const reopened = await openCliRuntime({ ...db.env, COBRO_SECRET_KEY: newKeyHex });
    await reopened.close();
    await db.close();
  });

  it('refuses the current key, a malformed or missing key file, and a value that does not open, changing nothing', async () => {
    const db = await freshDatabase('refused');
    const runtime = await openCliRuntime(db.env);
    try {
      const same = await runInProcess(
        ['secrets', 'rekey', '--new-key-file', keyFile('same.key', oldKeyHex)],
        runtime,
      );
      expect(same).toMatchObject({
        code: 1,
        stderr: 'the new key is the current key: nothing to do\n',
      });
      const short = keyFile('short.key', 'abcd\n');
      expect(await runInProcess(['secrets', 'rekey', '--new-key-file', short], runtime)).toEqual({
        code: 2,
        stdout: '',
        stderr: `${short} must hold the new key: 64 hexadecimal characters (openssl rand -hex 32 > ${short})\n`,
      });
      const missing = await runInProcess(
        ['secrets', 'rekey', '--new-key-file', path.join(root, 'nope.key')],
        runtime,
      );
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('ENOENT');
      expect((await runInProcess(['secrets', 'rekey'], runtime)).code).toBe(2);
      const accountId = await sealSome(runtime);
      const stray = createSecretBox(crypto.randomBytes(32)).seal('sealed under another key');
      await runtime.ctx.db
        .updateTable('api_keys')
        .set({ private_token_enc: stray })
        .where('account_id', '=', accountId)
        .execute();
      const before = await openedWith(runtime, oldBox);

      const run = await runInProcess(['secrets', 'rekey', '--new-key-file', newKeyFile], runtime);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^api_keys\.private_token_enc of id key\w+ does not open with the current key; nothing was changed\n$/,
      );
      // The accounts' secrets, sealed again before the stray value was reached, are under the old key still.
      expect(await openedWith(runtime, oldBox)).toEqual(before);
      const audit = await runtime.ctx.db
        .selectFrom('audit_log')
        .select('action')
        .where('action', '=', 'cobro secrets rekey')
        .execute();
      expect(audit).toEqual([]);
    } finally {
      await runtime.close();
      await db.close();
    }
  });

  it('replaces the sandbox key file when the key came from it', async () => {
    const db = await freshDatabase('key-file');
    const { COBRO_SECRET_KEY: _unset, ...env } = db.env;
    const runtime = await openCliRuntime(env);
    const file = path.join(env.DATA_DIR!, 'secret.key');
    try {
      await sealSome(runtime);
      const run = await runInProcess(['secrets', 'rekey', '--new-key-file', newKeyFile], runtime);
      expect(run).toEqual({
        code: 0,
        stdout: `9 secrets sealed again under the new key: ${file} now holds the new key\n`,
        stderr: '',
      });
    } finally {
      await runtime.close();
    }
    expect(fs.readFileSync(file, 'utf8')).toBe(`${newKeyHex}\n`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(`${file}.next`)).toBe(false);
    const reopened = await openCliRuntime(env);
    await reopened.close();
    await db.close();
  });

  it('is refused while another Cobro process holds the database, and a real server serves on the new key after', {
    timeout: 180_000,
  }, async () => {
    const db = await freshDatabase('served');
    const env = { ...db.env, PORT: String(await freePort()) };
    const base = `http://127.0.0.1:${env.PORT}`;
    let server: ServeProcess | null = await startServe(env);
    try {
      const who = demoCredentials(server.output());
      expect((await call(base, who, 'GET', '/api/account')).status).toBe(200);
      const whileServed = await runCli(['secrets', 'rekey', '--new-key-file', newKeyFile], env);
      expect(whileServed.code).toBe(1);
      expect(whileServed.stderr).toMatch(
        onPostgres
          ? /^other Cobro processes are connected to this database \(cobro:\d+@.+\): stop every cobro serve and worker first/
          : /^cobro secrets rekey runs with no cobro serve on the database: stop the server/,
      );
      if (!onPostgres) {
        // Sent straight to the server's operator socket, as no cobro CLI would, it is refused there too.
        const viaSocket = await runThroughServer(
          opsSocketPath(db.env.DATA_DIR!),
          ['secrets', 'rekey', '--new-key-file', newKeyFile],
          () => {},
        );
        expect(viaSocket).toMatchObject({
          exitCode: 1,
          stderr: expect.stringMatching(/^cobro secrets rekey runs with no cobro serve/),
        });
      }
      await server.stop();
      server = null;

      const rekeyed = await runCli(['secrets', 'rekey', '--new-key-file', newKeyFile], env);
      expect(rekeyed.code, rekeyed.stderr).toBe(0);
      // The old key's refusal is the start's own check (openRuntime, decision 690), proven on this database by the
      // first test; a real `cobro serve` refused on another key is test/cli/restore-secret-key.test.ts's.
      server = await startServe({ ...env, COBRO_SECRET_KEY: newKeyHex });
      const after = await call(base, who, 'GET', '/api/account');
      expect(after.status, after.text).toBe(200);
    } finally {
      await server?.stop();
      await db.close();
    }
  });

  it.runIf(onPostgres)(
    'names a Cobro process of another host connected to the database',
    async () => {
      const db = await freshDatabase('other-host');
      const runtime = await openCliRuntime(db.env);
      const other = new pg.Client({
        connectionString: db.env.DATABASE_URL,
        application_name: 'cobro:4242@other-host',
      });
      await other.connect();
      try {
        const run = await runInProcess(['secrets', 'rekey', '--new-key-file', newKeyFile], runtime);
        expect(run.code).toBe(1);
        expect(run.stderr).toContain('(cobro:4242@other-host)');
      } finally {
        await other.end();
        await runtime.close();
        await db.close();
      }
    },
  );
});

// `cobro backup` while `cobro serve` takes payouts on the same DATA_DIR (through the operator socket), then
// `cobro restore` into an empty DATA_DIR and a server on the copy: every payout acknowledged before the backup began
// is there, none sent after it ended, the wallet's balance is what those payouts left, and `cobro ledger verify` is
// clean. Restore refuses a DATA_DIR that is not empty, a damaged file and another format version, leaving nothing.
// On PostgreSQL both commands refuse at once, naming docs/operations.md. Decision 690: two backups to one name (the
// last block) both answered "backup written" before it, the second replacing the first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { dataDirSeeder } from '../support/cli-in-process.ts';
import { freePort } from '../support/net.ts';
import { encodeBackup } from '../../src/platform/db/backup-file.ts';
import { restoreBackup, type BackupOutcome } from '../../src/platform/db/backup.ts';
import { call, demoCredentials, send, sleep, type Credentials } from '../reliability/load.ts';

const fundingMinor = 10_000_000;
/** A sandbox payout of this amount is approved when it is created. */
const payoutMinor = 1000;
const lanes = 4;
const onPostgres = process.env.DATABASE_URL !== undefined;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-backup-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const seedDataDir = dataDirSeeder(root);

function payout(run: string, i: number) {
  const order = `${run}-${i}`;
  return {
    kind: 'payout' as const,
    path: '/api/wallet/payout',
    key: `key-${order}`,
    order,
    amountMinor: payoutMinor,
    body: {
      email: 'johndoe@example.com',
      subject: 'Backup under load',
      currency: 'CLP',
      order,
      amount: payoutMinor,
      accountbank_name: 'Jhon Doe',
      accountbank_rut: '111111111',
      accountbank_sbif: '0001',
      accountbank_type: '1',
      accountbank_num: '12312312312',
    },
  };
}

/** Payouts sent in lanes until stopped: how many were sent and the ids of those acknowledged, in order. */
function payoutLoad(baseUrl: string, who: Credentials) {
  const run = `b${Date.now().toString(36)}`;
  const acknowledged: string[] = [];
  let sent = 0;
  let stopped = false;
  const lane = async () => {
    while (!stopped) {
      const p = payout(run, sent++);
      const answer = await send(baseUrl, who, p);
      expect(answer?.status, answer?.body).toBe(200);
      acknowledged.push(
        String(
          (JSON.parse(answer?.body ?? '{}') as { identifier_payout?: unknown }).identifier_payout,
        ),
      );
    }
  };
  const done = Promise.all(Array.from({ length: lanes }, lane));
  return {
    acknowledged,
    sentCount: () => sent,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

async function walletAvailable(baseUrl: string, who: Credentials): Promise<number> {
  const res = await call(baseUrl, who, 'GET', '/api/wallet?currency=CLP');
  expect(res.status, res.text).toBe(200);
  return Number(res.json.amount_available);
}

/**
 * The serving `cobro serve` on the seeded DATA_DIR `original`, started by the first test that asks and stopped after
 * the file: the backup under load and the two backups to one name each need a server taking the backup, not a
 * server of their own (a start is about 2 CPU s on PGlite).
 */
let original: Promise<{ env: Record<string, string>; server: ServeProcess }> | null = null;
function originalServer() {
  original ??= (async () => {
    const dataDir = path.join(root, 'original');
    await seedDataDir(dataDir);
    const env = {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      COBRO_MODE: 'sandbox',
      RATE_LIMIT_PER_MINUTE: '0',
    };
    return { env, server: await startServe(env) };
  })();
  return original;
}
afterAll(async () => {
  await (await original?.catch(() => null))?.server.stop();
});

const reasonOf = (outcome: BackupOutcome) => (outcome.ok ? 'restored' : outcome.reason);
const marks: string[] = [];
let markAt = Date.now();
function mark(step: string): void {
  marks.push(`${step} ${Date.now() - markAt} ms`);
  markAt = Date.now();
}

describe.skipIf(onPostgres)('backup and restore of the embedded database', () => {
  it('backs up under load; the copy serves every payout acknowledged before, with a clean ledger', {
    timeout: 120_000,
  }, async () => {
    const { env, server: serving } = await originalServer();
    mark('seed and serve');
    const file = path.join(root, 'cobro.backup');
    let server: ServeProcess | null = null;
    const baseUrl = `http://127.0.0.1:${env.PORT}`;
    const who = demoCredentials(serving.output());
    try {
      const funded = await call(baseUrl, who, 'POST', '/api/sandbox/wallet/credit', {
        amount: fundingMinor,
        currency: 'CLP',
        reason: 'backup',
      });
      expect(funded.status, funded.text).toBe(200);
      const load = payoutLoad(baseUrl, who);
      // Payouts are flowing, and keep flowing while the backup runs.
      while (load.acknowledged.length < 5) await sleep(20);
      const before = new Set(load.acknowledged);
      const t0 = Date.now();
      const backup = await runCli(['backup', '--to', path.relative(process.cwd(), file)], env);
      const sentByEnd = load.sentCount();
      const backupMs = Date.now() - t0;
      await load.stop();
      mark('backup');
      expect(backup.code, backup.stderr).toBe(0);
      expect(backup.stdout).toMatch(/^backup written to .*cobro\.backup: \d+ bytes/);
      // Taken by the serving process (its log says so; the line may reach the pipe just after the answer).
      for (let i = 0; i < 50 && !serving.output().includes('backup written'); i++) await sleep(100);
      expect(serving.output()).toContain('backup written');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(before.size).toBeGreaterThan(0);

      const busy = await runCli(['restore', '--from', file], env);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/is not empty .*restore writes only into an empty directory/);

      const copy = path.join(root, 'copy');
      const restored = await runCli(['restore', '--from', file], { DATA_DIR: copy });
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toMatch(/^restored .* into /);
      mark('restore');
      const copyEnv = { ...env, DATA_DIR: copy, PORT: String(await freePort()) };
      server = await startServe(copyEnv);
      mark('serve copy');
      const copyUrl = `http://127.0.0.1:${copyEnv.PORT}`;
      const paidMinor = fundingMinor - (await walletAvailable(copyUrl, who));
      const payoutsInCopy = paidMinor / payoutMinor;
      expect(Number.isInteger(payoutsInCopy)).toBe(true);
      expect(payoutsInCopy).toBeGreaterThanOrEqual(before.size);
      expect(payoutsInCopy).toBeLessThanOrEqual(sentByEnd);
      for (const id of before) {
        const found = await call(copyUrl, who, 'GET', `/api/payout/${id}`);
        expect(found.status, `${id}: ${found.text}`).toBe(200);
      }
      const verify = await runCli(['ledger', 'verify'], copyEnv);
      mark('checks');
      expect(verify.code, verify.stderr).toBe(0);
      expect(verify.stdout).toMatch(/^ledger clean/);
      console.info(
        `backup-restore: ${before.size} payouts acknowledged before the backup, ${payoutsInCopy} in the copy, ${sentByEnd} sent by its end; the backup command took ${backupMs} ms; ${backup.stdout.trim()}; steps: ${marks.join(', ')}`,
      );
    } finally {
      console.info(`backup-restore steps: ${marks.join(', ')}`);
      await server?.stop();
    }
  });

  it("restore refuses a damaged file, another format version and a newer cobro's backup, leaving DATA_DIR as it was", async () => {
    const bytes = await encodeBackup(
      {
        createdAt: new Date(0).toISOString(),
        engine: 'pglite',
        migrations: [],
        secretKeyFile: null,
      },
      new TextEncoder().encode('database files'),
    );
    const damaged = path.join(root, 'damaged.backup');
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 10] = (flipped[flipped.length - 10] ?? 0) ^ 0xff;
    fs.writeFileSync(damaged, flipped);
    const target = path.join(root, 'never');
    const broken = await restoreBackup(target, damaged);
    expect(broken).toMatchObject({ ok: false });
    expect(reasonOf(broken)).toMatch(/checksum mismatch: the file is damaged or incomplete/);
    const newline = bytes.indexOf(0x0a);
    const header = bytes.subarray(0, newline).toString().replace('"version":1', '"version":2');
    const later = path.join(root, 'later.backup');
    fs.writeFileSync(later, Buffer.concat([Buffer.from(header), bytes.subarray(newline)]));
    const refused = await restoreBackup(target, later);
    expect(reasonOf(refused)).toMatch(/backup format version 2, this cobro reads version 1/);
    const newer = path.join(root, 'newer.backup');
    fs.writeFileSync(
      newer,
      await encodeBackup(
        {
          createdAt: new Date(0).toISOString(),
          engine: 'pglite',
          migrations: ['0001-foundation', '9999-from-the-future'],
          secretKeyFile: null,
        },
        new TextEncoder().encode('database files'),
      ),
    );
    const ahead = await restoreBackup(target, newer);
    expect(reasonOf(ahead)).toMatch(
      /written by a newer cobro \(migrations this one lacks: 9999-from-the-future\)/,
    );
    expect(fs.existsSync(target)).toBe(false);
  });
});

describe.runIf(onPostgres)('backup and restore on PostgreSQL', () => {
  it('both refuse before opening anything, naming PostgreSQL tools and docs/operations.md', async () => {
    const env = {
      DATABASE_URL: process.env.DATABASE_URL ?? '',
      DATA_DIR: path.join(root, 'pg'),
    };
    for (const argv of [
      ['backup', '--to', path.join(root, 'x')],
      ['restore', '--from', path.join(root, 'x')],
    ]) {
      const out = await runCli(argv, env);
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/pg_dump or pg_basebackup .*docs\/operations\.md/);
    }
    expect(fs.existsSync(path.join(root, 'x'))).toBe(false);
  });
});

// Decision 690: before it, both backups answered "backup written" and the second replaced the first.
// docs/operations.md: the backup file is "never overwritten: name a new one". takeBackup (src/platform/db/backup.ts:29
// and :49-51) checks that the name is free before the copy, then renames its `.partial` over the name after it: two
// backups to one name (a cron line and a manual run in the same minute) both answer "backup written", and the second
// replaces the first.
describe.skipIf(onPostgres)('two backups to one file name', () => {
  it('one writes the file, the other refuses', { timeout: 120_000 }, async () => {
    const { env } = await originalServer();
    const file = path.join(root, 'twice.cobro-backup');
    const outcomes = await Promise.all([
      runCli(['backup', '--to', file], env),
      runCli(['backup', '--to', file], env),
    ]);
    const written = outcomes.filter((o) => o.code === 0);
    expect(
      written.length,
      outcomes.map((o) => `${o.code}: ${o.stdout}${o.stderr}`).join('\n'),
    ).toBe(1);
  });
});

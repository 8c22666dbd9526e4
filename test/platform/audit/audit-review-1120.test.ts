// Decision 1120: a review of the audit trail against docs/audit.md. `cobro accounts create` wrote its row in the
// `service` chain naming no object, so the trail could not say which account the operator made, with which
// credentials, and `cobro audit list` could not read past an account's last 500 rows (`--before`; both failed
// before the mend). The rest pins what held: `cobro audit verify` finds a row removed from the
// middle of a chain, two rows swapped, and a row put between two others, each naming the first row that breaks;
// and one account's changes raced through the API and the CLI at once leave one unbroken chain, one row a change.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { verifyAudit } from '../../../src/platform/audit/verify.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { fund } from '../../modules/wallet/wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

const rowsOf = (chain: string) =>
  t.ctx.db.selectFrom('audit_log').selectAll().where('chain', '=', chain).orderBy('seq').execute();

/** Runs statements with the append-only trigger off, as someone editing the table by hand would. */
async function aroundTrigger(...statements: string[]): Promise<void> {
  await sql.raw('ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only').execute(t.ctx.db);
  try {
    for (const statement of statements) await sql.raw(statement).execute(t.ctx.db);
  } finally {
    await sql.raw('ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only').execute(t.ctx.db);
  }
}

/** An account of its own with `n` rows in its chain, the trail whole before the test breaks it. */
async function chainOf(n: number): Promise<TestAccount> {
  const a = await t.createAccount();
  for (let i = 0; i < n; i++) await fund(t, a, 1_000 + i);
  expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  return a;
}

describe('cobro accounts create names the account it made, in that account’s chain', () => {
  it('its row is the first of the new account’s chain, its target the account', async () => {
    const out = await dispatch(['accounts', 'create', '--name', 'Nueva', '--json'], t.ctx);
    expect(out.exitCode, out.stderr).toBe(0);
    const id = (JSON.parse(out.stdout) as { id: string }).id;
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .select(['chain', 'seq', 'actor', 'target'])
      .where('action', '=', 'cobro accounts create')
      .execute();
    expect(rows.map((r) => ({ ...r, seq: Number(r.seq) }))).toEqual([
      { chain: id, seq: 1, actor: 'operator', target: id },
    ]);
    // Nothing of the credentials it printed is in the row.
    const row = JSON.stringify(await rowsOf(id), (_, v: unknown) =>
      typeof v === 'bigint' ? String(v) : v,
    );
    const printed = JSON.parse(out.stdout) as Record<string, unknown>;
    const secrets = Object.entries(printed).filter(
      ([k, v]) => /token|secret/.test(k) && typeof v === 'string',
    );
    expect(secrets.length).toBeGreaterThanOrEqual(2);
    for (const [, value] of secrets) expect(row).not.toContain(String(value));
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('a refused creation writes no row', async () => {
    const before = await t.ctx.db.selectFrom('audit_log').select('id').execute();
    const out = await dispatch(['accounts', 'create', '--name', ''], t.ctx);
    expect(out.exitCode).not.toBe(0);
    expect(await t.ctx.db.selectFrom('audit_log').select('id').execute()).toHaveLength(
      before.length,
    );
  });
});

describe('cobro audit verify finds a chain changed in its middle', () => {
  it('a row removed from the middle: the next row names its position', async () => {
    const a = await chainOf(4);
    const [, second, third] = await rowsOf(a.id);
    await aroundTrigger(
      `CREATE TABLE audit_held_1120 AS SELECT * FROM audit_log WHERE id = '${second!.id}'`,
      `DELETE FROM audit_log WHERE id = '${second!.id}'`,
    );
    expect(await verifyAudit(t.ctx.db)).toEqual({
      ok: false,
      id: third!.id,
      fault: `audit row ${third!.id} (chain ${a.id}, position 3) follows position 1`,
    });
    const out = await dispatch(['audit', 'verify'], t.ctx);
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain(`audit row ${third!.id}`);
    await aroundTrigger(
      'INSERT INTO audit_log SELECT * FROM audit_held_1120',
      'DROP TABLE audit_held_1120',
    );
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('two rows swapped (their positions exchanged): the first out of place is named', async () => {
    const a = await chainOf(4);
    const [, second, third] = await rowsOf(a.id);
    await aroundTrigger(
      `UPDATE audit_log SET seq = 1000000 WHERE id = '${second!.id}'`,
      `UPDATE audit_log SET seq = 2 WHERE id = '${third!.id}'`,
      `UPDATE audit_log SET seq = 3 WHERE id = '${second!.id}'`,
    );
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: false, id: third!.id });
    await aroundTrigger(
      `UPDATE audit_log SET seq = 1000000 WHERE id = '${third!.id}'`,
      `UPDATE audit_log SET seq = 2 WHERE id = '${second!.id}'`,
      `UPDATE audit_log SET seq = 3 WHERE id = '${third!.id}'`,
    );
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('a row put between two others, hashed as the append would: the row after it is named', async () => {
    const a = await chainOf(3);
    const [first, second, third] = await rowsOf(a.id);
    // The forged row is a perfect second row (its hash is right, it names the first's), and the rows after it are
    // moved down one; the old second row no longer names the hash of the row before it.
    await aroundTrigger(
      `UPDATE audit_log SET seq = seq + 10 WHERE chain = '${a.id}' AND seq >= 2`,
      `UPDATE audit_log SET seq = seq - 9 WHERE chain = '${a.id}' AND seq >= 12`,
      `INSERT INTO audit_log (id, chain, seq, actor_kind, actor, action, target, request_id, at, prev_hash, hash)
       SELECT 'audforged000000000000', chain, 2, actor_kind, 'operator', 'cobro wallet credit', NULL, NULL, at,
              hash, cobro_audit_hash(chain, 2, 'audforged000000000000', actor_kind, 'operator', 'cobro wallet credit',
                                     NULL, NULL, at, hash)
       FROM audit_log WHERE id = '${first!.id}'`,
    );
    expect(await verifyAudit(t.ctx.db)).toEqual({
      ok: false,
      id: second!.id,
      fault: `audit row ${second!.id} (chain ${a.id}, position 3) does not name the hash of the row before it`,
    });
    await aroundTrigger(
      `DELETE FROM audit_log WHERE id = 'audforged000000000000'`,
      `UPDATE audit_log SET seq = seq - 1 WHERE chain = '${a.id}' AND seq >= 3`,
    );
    expect((await rowsOf(a.id)).map((r) => r.id)).toEqual([first!.id, second!.id, third!.id]);
    expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  });
});

describe('cobro audit list reads a trail past its last 500 rows', () => {
  it('--before N lists the rows before position N, newest first, so every row can be read', async () => {
    const a = await chainOf(5);
    const page = async (...more: string[]) => {
      const out = await dispatch(['audit', 'list', '--account', a.id, '--json', ...more], t.ctx);
      expect(out.exitCode, out.stderr).toBe(0);
      return (JSON.parse(out.stdout) as { position: string }[]).map((r) => r.position);
    };
    expect(await page('--limit', '2')).toEqual(['5', '4']);
    expect(await page('--limit', '2', '--before', '4')).toEqual(['3', '2']);
    expect(await page('--limit', '2', '--before', '2')).toEqual(['1']);
    expect(await page('--before', '1')).toEqual([]);
    for (const odd of ['0', '-1', 'abc', '1e3', '99999999999999999999', '']) {
      const out = await dispatch(['audit', 'list', '--account', a.id, '--before', odd], t.ctx);
      expect(out.exitCode, odd).toBe(2);
      expect(out.stderr).toContain('--before must be a position');
    }
  });
});

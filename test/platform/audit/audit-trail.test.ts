// Issue 36 point 4: the audit trail is append-only (a trigger refuses UPDATE, DELETE and TRUNCATE), hash-chained,
// and `cobro audit verify` finds a row changed around the trigger, or one removed, naming it; `cobro audit list`
// shows an account's rows; the operator's dispute commands record theirs in their own transaction.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { paidSale, setFee } from '../../modules/refunds/helpers.ts';
import { fund } from '../../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount();
  for (const amount of [1_000, 2_000, 3_000]) await fund(t, a, amount);
});
afterAll(async () => {
  await t.close();
});

const rowsOf = (chain: string) =>
  t.ctx.db.selectFrom('audit_log').selectAll().where('chain', '=', chain).orderBy('seq').execute();

async function aroundTrigger(statement: string): Promise<void> {
  await sql.raw('ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only').execute(t.ctx.db);
  try {
    await sql.raw(statement).execute(t.ctx.db);
  } finally {
    await sql.raw('ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only').execute(t.ctx.db);
  }
}

describe('audit trail', () => {
  it('chains each row to the one before it and lists them newest first', async () => {
    const rows = await rowsOf(a.id);
    expect(rows.map((r) => Number(r.seq))).toEqual([1, 2, 3]);
    expect(rows[1]!.prev_hash).toBe(rows[0]!.hash);
    expect(rows[0]!.action).toBe('POST /api/sandbox/wallet/credit');
    const listed = await dispatch(['audit', 'list', '--account', a.id, '--json'], t.ctx);
    expect(listed.exitCode).toBe(0);
    const shown = JSON.parse(listed.stdout) as Array<{ position: string; actor_kind: string }>;
    expect(shown.map((r) => r.position)).toEqual(['3', '2', '1']);
    expect(shown[0]!.actor_kind).toBe('api_key');
    expect((await dispatch(['audit', 'verify'], t.ctx)).exitCode).toBe(0);
  });

  it("names the API key a change was made with: the account's own pair, or a key of `cobro keys create`", async () => {
    const c = await t.createAccount();
    await fund(t, c, 100);
    const made = await dispatch(
      ['keys', 'create', '--account', c.id, '--scope', 'full', '--name', 'erp', '--json'],
      t.ctx,
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const key = JSON.parse(made.stdout) as {
      id: string;
      public_token: string;
      private_token: string;
    };
    await fund(t, { ...c, publicToken: key.public_token, privateToken: key.private_token }, 100);
    const actors = (await rowsOf(c.id)).map((r) => r.actor);
    expect(actors).toEqual(['key:primary', 'operator', `key:${key.id}`]);
  });

  it('verifies a chain past nine rows in its order (positions are numbers, not text)', async () => {
    const c = await t.createAccount();
    for (let i = 0; i < 11; i++) await fund(t, c, 100);
    expect((await rowsOf(c.id)).map((r) => Number(r.seq))).toEqual(
      Array.from({ length: 11 }, (_, i) => i + 1),
    );
    expect(await dispatch(['audit', 'verify'], t.ctx)).toMatchObject({ exitCode: 0 });
  });

  it('refuses UPDATE, DELETE and TRUNCATE of the trail', async () => {
    for (const statement of [
      `UPDATE audit_log SET action = 'x' WHERE chain = '${a.id}'`,
      `DELETE FROM audit_log WHERE chain = '${a.id}'`,
      'TRUNCATE audit_log',
    ])
      await expect(sql.raw(statement).execute(t.ctx.db)).rejects.toThrow(/append-only/);
    expect(await rowsOf(a.id)).toHaveLength(3);
  });

  it('records the operator and the dispute commands, the CSV batch row by row', async () => {
    await setFee(t, a, '0');
    const sale = await paidSale(t, a, 10_000, 'audited-sale');
    const opened = await dispatch(
      [
        'disputes',
        'open',
        '--transaction',
        sale,
        '--amount',
        '2000',
        '--reason',
        'fraud',
        '--key',
        'CB-AUDITED',
        '--json',
      ],
      t.ctx,
    );
    expect(opened.exitCode, opened.stderr).toBe(0);
    const id = JSON.parse(opened.stdout).id as string;
    const won = await dispatch(['disputes', 'resolve', id, '--outcome', 'won'], t.ctx);
    expect(won.stdout).toBe(`${id} won\n`);
    const again = await dispatch(['disputes', 'resolve', id, '--outcome', 'lost'], t.ctx);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('dispute_closed');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'disputes-')), 'report.csv');
    fs.writeFileSync(
      file,
      `transaction_id,amount,reason,dispute_id,outcome\n${sale},1000,chargeback,,\n${sale},99999,too much,,\nnope,1,x,,\n`,
    );
    const imported = await dispatch(['disputes', 'import', file], t.ctx);
    expect(imported.exitCode).toBe(1);
    expect(imported.stdout).toMatch(/line 2: dsp\w+ opened/);
    expect(imported.stdout).toContain('line 3: refused: transaction');
    expect(imported.stdout).toContain('line 4: refused: transaction not found');
    expect(imported.stdout).toContain('1 recorded, 2 refused');
    // (setFee runs its command directly; the dispatcher is what records an operator's command.)
    const operator = (await rowsOf(a.id)).filter((r) => r.actor_kind === 'operator');
    expect(operator.map((r) => r.action)).toEqual([
      'cobro disputes open',
      'cobro disputes resolve',
      'cobro disputes open',
    ]);
    expect((await dispatch(['ledger', 'verify'], t.ctx)).exitCode).toBe(0);
  });

  it('finds a row changed around the trigger, and a removed last row, naming them', async () => {
    expect((await dispatch(['audit', 'verify'], t.ctx)).exitCode).toBe(0);
    const second = (await rowsOf(a.id))[1]!;
    await aroundTrigger(`UPDATE audit_log SET target = 'someone-else' WHERE id = '${second.id}'`);
    const broken = await dispatch(['audit', 'verify'], t.ctx);
    expect(broken.exitCode).toBe(1);
    expect(broken.stderr).toContain(`audit row ${second.id}`);
    expect(broken.stderr).toContain('was changed');
    const json = await dispatch(['audit', 'verify', '--json'], t.ctx);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, id: second.id });

    const b = await t.createAccount();
    await fund(t, b, 1_000);
    await fund(t, b, 1_000);
    const last = (await rowsOf(b.id)).at(-1)!;
    await aroundTrigger(`DELETE FROM audit_log WHERE id = '${last.id}'`);
    const original = second.target === null ? 'NULL' : `'${second.target}'`;
    await aroundTrigger(`UPDATE audit_log SET target = ${original} WHERE id = '${second.id}'`);
    const cut = await dispatch(['audit', 'verify'], t.ctx);
    expect(cut.exitCode).toBe(1);
    expect(cut.stderr).toContain(`chain ${b.id} ends at row 1 but its head names row 2`);
  });
});

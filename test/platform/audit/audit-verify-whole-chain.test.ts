// Decision 675: `cobro audit verify` finds a chain whose every row was removed around the trigger while its head
// still names its last row. Before it, verify.ts compared a head with its chain's last row only for chains that
// still had rows, so such a chain verified.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { fund } from '../../modules/wallet/wallet-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('cobro audit verify', () => {
  it("finds an account's whole chain removed (its head left naming its last row)", async () => {
    const kept = await t.createAccount('Kept');
    await fund(t, kept, 1_000);
    const erased = await t.createAccount('Erased');
    await fund(t, erased, 1_000);
    await fund(t, erased, 2_000);
    expect((await dispatch(['audit', 'verify'], t.ctx)).exitCode).toBe(0);
    const head = await t.ctx.db
      .selectFrom('audit_heads')
      .select('seq')
      .where('chain', '=', erased.id)
      .executeTakeFirstOrThrow();
    expect(Number(head.seq)).toBeGreaterThanOrEqual(2);
    await sql.raw('ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only').execute(t.ctx.db);
    try {
      await sql.raw(`DELETE FROM audit_log WHERE chain = '${erased.id}'`).execute(t.ctx.db);
    } finally {
      await sql.raw('ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only').execute(t.ctx.db);
    }
    const out = await dispatch(['audit', 'verify'], t.ctx);
    expect(out.exitCode, `verify accepted a chain with every row removed: ${out.stdout}`).toBe(1);
    expect(out.stderr).toContain(erased.id);
  });
});

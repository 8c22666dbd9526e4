// Decision 815 (decision 790's low finding): `PUT /api/maclient/{id}` read the client's bank account before its
// update without a lock, so two updates at once could both read the same account and log destination changes whose
// `previous` was not the account each replaced. Updates raced over real HTTP across two `cobro serve` processes on
// one PostgreSQL: the changes logged must form one chain, each `previous` the `current` before it.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './load.ts';
import { newAccount, startStage, urlOf, type Stage } from './races.ts';

let stage: Stage;

// On PGlite one process holds the database and runs one transaction at a time: no race to show, and the test's own
// read of the log could not open the files while the server holds them.
describe.runIf(process.env.DATABASE_URL !== undefined)(
  'marketplace client updates raced over HTTP',
  () => {
    beforeAll(async () => {
      stage = await startStage();
    }, 120_000);
    afterAll(async () => {
      await stage?.close();
    });

    it("logs each bank change's previous account as the one it replaced", async () => {
      const who = await newAccount(stage, 'Bancos');
      const bank = (num: string) => ({ sbif: '0001', type: '1', num, rut: '111111111' });
      const made = await call(stage.urls[0]!, who, 'POST', '/api/maclient', {
        email: 'client@example.com',
        name: 'Client',
        phone: '923122312',
        bank: bank('10000000000'),
      });
      expect(made.status, made.text).toBe(200);
      const id = String(made.json.id);
      const updatesMax = 12;
      const answers = await Promise.all(
        Array.from({ length: updatesMax }, (_, i) =>
          call(urlOf(stage, i), who, 'PUT', `/api/maclient/${id}`, {
            bank: { num: String(20000000000 + i) },
          }),
        ),
      );
      for (const a of answers) expect(a.status, a.text).toBe(200);
      const db = await stage.engine.open();
      const rows = await sql<{ previous: string | null; current: string }>`
      SELECT previous::text AS previous, current::text AS current FROM destination_changes
      WHERE subject_id = ${id} ORDER BY changed_at, id`.execute(db.db);
      const nums = rows.rows.map((r) => ({
        previous: r.previous === null ? null : (JSON.parse(r.previous) as { num: string }).num,
        current: (JSON.parse(r.current) as { num: string }).num,
      }));
      expect(nums).toHaveLength(updatesMax);
      // One chain from the first account: every `previous` is some change's `current` (or the first), used once.
      const previous = nums.map((n) => n.previous).sort();
      const replaced = ['10000000000', ...nums.map((n) => n.current)].sort();
      const last = replaced.filter((n) => !previous.includes(n));
      expect(new Set(previous).size, JSON.stringify(nums)).toBe(updatesMax);
      expect(last, JSON.stringify(nums)).toHaveLength(1);
    });
  },
);

// Split sales raced over real HTTP across two `cobro serve` processes on one PostgreSQL (one process on PGlite):
// refunds of marketplace and event sales fired while both processes move the account's clock, so settlement, the
// clients' deposits and the beneficiaries' payout run at once with the refunds. No part may be paid twice: what a
// refund took back from a payable never also reaches the client or beneficiary, the ledger verifies, and every
// acknowledged refund is in refund_clearing exactly once. Three sales of each kind, two refunds of each and one clock
// move from each process race: enough to race, and within CI's budget (decision 760).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Credentials } from './load.ts';
import {
  advance,
  expectLedgerClean,
  newAccount,
  paidSale,
  startStage,
  urlOf,
  type Stage,
} from './races.ts';

let stage: Stage;

function santiagoDate(offsetDays: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago' }).format(
    new Date(Date.now() + offsetDays * 86_400_000),
  );
}

async function splitSetup(who: Credentials, tag: string) {
  const base = stage.urls[0]!;
  const client = await call(base, who, 'POST', '/api/maclient', {
    email: `${tag}@example.com`,
    name: 'Client',
    phone: '923122312',
    bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
  });
  expect(client.status, client.text).toBe(200);
  const membership = await call(base, who, 'POST', '/api/maaffiliation', {
    name: `${tag}-market`,
    percentage: '40',
    affiliation: [[client.json.id, '60']],
  });
  expect(membership.status, membership.text).toBe(200);
  const ev = await call(base, who, 'POST', '/api/event', {
    name: 'Race event',
    event: `${tag}-ev`,
    date_event: santiagoDate(2),
    date_payment: santiagoDate(3),
    date_closing_sales: santiagoDate(2),
    service_sale: 100,
    affiliation: [
      [`${tag}-a@example.com`, 30],
      [`${tag}-b@example.com`, 45.5],
    ],
  });
  expect(ev.status, ev.text).toBe(200);
  return { membershipToken: String(membership.json.token), event: `${tag}-ev` };
}

/** Sum of a ledger code's postings, by journal kind, for the owners named (the system when none). */
async function postedTo(code: string, owners: readonly string[] | null): Promise<bigint> {
  const db = await stage.engine.open();
  const rows = await sql<{ total: string | null }>`
    SELECT SUM(p.amount_minor)::text AS total FROM postings p
    JOIN ledger_accounts a ON a.id = p.ledger_account_id
    WHERE a.code = ${code} ${owners === null ? sql`` : sql`AND a.owner IN (${sql.join(owners)})`}`.execute(
    db.db,
  );
  return BigInt(rows.rows[0]?.total ?? '0');
}

describe.runIf(process.env.DATABASE_URL !== undefined)(
  'split sales raced over HTTP across processes',
  () => {
    beforeAll(async () => {
      stage = await startStage();
    }, 120_000);
    afterAll(async () => {
      await stage?.close();
    });
    it('refunds of split sales racing settlement, deposits and the event payout in two processes', async () => {
      const who = await newAccount(stage, 'split race');
      const { membershipToken, event } = await splitSetup(who, 'sp');
      // The sales are made together: making them is not the race.
      const sales = (
        await Promise.all(
          [0, 1, 2].map(async (i) => {
            const mk = 9_000 + i * 101;
            const ev = 12_000 + i * 77;
            return [
              {
                id: await paidSale(stage, who, `mk-${i}`, mk, { marketplace: membershipToken }),
                amount: mk,
              },
              { id: await paidSale(stage, who, `ev-${i}`, ev, { event }), amount: ev },
            ];
          }),
        )
      ).flat();
      // Half of them settled before the race; the rest settle during it.
      expect((await advance(stage.urls[0]!, who, { seconds: 1 })).status).toBe(200);
      const fired: Promise<{
        id: string;
        amount: number;
        ok: boolean;
        status: number;
        text: string;
      }>[] = [];
      for (const [s, sale] of sales.entries()) {
        const half = Math.floor(sale.amount / 2);
        for (const k of [0, 1])
          fired.push(
            call(urlOf(stage, s + k), who, 'POST', '/api/nullification', {
              id: sale.id,
              amount: half,
              subject: 'race',
            }).then((r) => ({
              id: sale.id,
              amount: half,
              ok: r.status === 200 && r.json.status !== 'failed',
              status: r.status,
              text: r.text,
            })),
          );
      }
      const moves = [0, 1].map((i) => advance(urlOf(stage, i), who, { days: 2 }));
      const answers = await Promise.all(fired);
      const moved = await Promise.all(moves);
      expect(moved.map((m) => m.status)).toEqual([200, 200]);
      expect(answers.filter((a) => a.status >= 500)).toEqual([]);
      // Move on past every deposit and the event's payment date.
      for (const i of [0, 1])
        expect((await advance(urlOf(stage, i), who, { days: 2 })).status).toBe(200);
      await expectLedgerClean(stage);
      // Each acknowledged refund is collected once and whole, or waits for funds with less than its amount collected.
      const db = await stage.engine.open();
      const refunds = await sql<{
        id: string;
        amount: string;
        status: string;
        cleared: string | null;
      }>`
      SELECT n.id, n.amount_minor::text AS amount, n.status,
        (SELECT SUM(p.amount_minor)::text FROM postings p JOIN ledger_accounts a ON a.id = p.ledger_account_id
          JOIN journal_entries j ON j.id = p.journal_id WHERE a.code = 'refund_clearing' AND j.reference = n.id) AS cleared
      FROM nullifications n WHERE n.account_id = ${who.accountId}`.execute(db.db);
      expect(refunds.rows.length).toBe(answers.filter((a) => a.ok).length);
      for (const r of refunds.rows) {
        const clearedMinor = BigInt(r.cleared ?? '0');
        if (r.status === 'awaiting_funds')
          expect(clearedMinor, JSON.stringify(r)).toBeLessThan(BigInt(r.amount));
        else expect(clearedMinor, JSON.stringify(r)).toBe(BigInt(r.amount));
      }
      // Every sale's refunds add up on its row.
      for (const sale of sales) {
        const row = await db.db
          .selectFrom('transactions')
          .select(['refunded_minor'])
          .where('id', '=', sale.id)
          .executeTakeFirstOrThrow();
        const mine = answers.filter((a) => a.id === sale.id && a.ok);
        expect(BigInt(row.refunded_minor)).toBe(mine.reduce((s, a) => s + BigInt(a.amount), 0n));
      }
      // The split parts: what the clients and beneficiaries hold or were paid is what the sales' shares kept.
      const shares = await sql<{ kept: string | null }>`
      SELECT SUM(amount_minor - refunded_minor)::text AS kept FROM ma_payment_shares WHERE account_id = ${who.accountId}`.execute(
        db.db,
      );
      const clients = await sql<{ owner: string }>`
      SELECT DISTINCT client_id AS owner FROM ma_payment_shares WHERE account_id = ${who.accountId}`.execute(
        db.db,
      );
      const owners = clients.rows.map((r) => r.owner);
      const clientDeposits = await sql<{ total: string | null }>`
      SELECT SUM(-p.amount_minor)::text AS total FROM postings p
      JOIN ledger_accounts a ON a.id = p.ledger_account_id JOIN journal_entries j ON j.id = p.journal_id
      WHERE a.code = 'client_payable' AND a.owner IN (${sql.join(owners)}) AND p.amount_minor < 0
        AND j.kind = 'marketplace_client_deposit'`.execute(db.db);
      const held = await postedTo('client_payable', owners);
      const deposited = BigInt(clientDeposits.rows[0]?.total ?? '0');
      // A share deposited before its refund keeps its full amount with the client (the merchant pays that part).
      const sharesFull = await sql<{ whole: string | null }>`
      SELECT SUM(amount_minor)::text AS whole FROM ma_payment_shares WHERE account_id = ${who.accountId}`.execute(
        db.db,
      );
      expect(held + deposited).toBeGreaterThanOrEqual(BigInt(shares.rows[0]?.kept ?? '0'));
      expect(held + deposited).toBeLessThanOrEqual(BigInt(sharesFull.rows[0]?.whole ?? '0'));
    }, 240_000);
  },
);

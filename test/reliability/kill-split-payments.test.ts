// Split sales paid across a power cut: marketplace sales, event tickets and an escrow merchant's sales (payments with
// an extension are recorded alone, outside the success group commit, decision 615) are paid at once on the hosted
// checkout of a real `cobro serve`, which is killed with SIGKILL mid-flight and restarts on the same data. Every
// checkout is then paid again as a payer would (once the attempts' lease ran out, waited for), and the sales settle.
// Each sale must be paid once with its division recorded once: one capture, one split, the clients' and
// beneficiaries' payables equal to their shares, the merchants' money equal to what is left, the ledger clean.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { startServe } from '../support/cli.ts';
import { serveOn, suiteEngine, type Engine } from './engines.ts';
import { operatorOn } from './races.ts';
import {
  call,
  demoCredentials,
  killer,
  payCheckout,
  resendUntilAnswered,
  sendThenKill,
  type Credentials,
} from './load.ts';

const perKind = 40;
const killAfterMsMax = 4_000;
const inFlightMax = 24;
const paidMarker = 'data-testid="result">Pago exitoso<';
/** ATTEMPT_LEASE_MS: how long a claim the kill left behind holds its checkout (2 minutes by default). */
const attemptLeaseMs = 3_000;

interface Checkout {
  readonly who: Credentials;
  readonly id: string;
  readonly valid: string;
  readonly amount: number;
}

function santiagoDate(offsetDays: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago' }).format(
    new Date(Date.now() + offsetDays * 86_400_000),
  );
}

async function createCheckout(
  baseUrl: string,
  who: Credentials,
  order: string,
  amount: number,
  extra: Record<string, unknown>,
): Promise<Checkout> {
  const res = await call(baseUrl, who, 'POST', '/api/transaction', {
    email: 'payer@example.com',
    order,
    subject: 'split kill',
    amount,
    ...extra,
  });
  expect(res.status, res.text).toBe(200);
  const q = new URL(String(res.json.url)).searchParams;
  return { who, id: q.get('id')!, valid: q.get('valid')!, amount };
}

async function scenario(engine: Engine): Promise<void> {
  // A claim the kill leaves behind holds its checkout for ATTEMPT_LEASE_MS, on the service clock (decision 760).
  const { env, baseUrl } = await serveOn(engine, { ATTEMPT_LEASE_MS: String(attemptLeaseMs) });
  // Operator commands without a process of their own (races.ts): the kill is the server's, not theirs.
  const operator = await operatorOn(engine, env);
  const first = await startServe(env);
  const m = demoCredentials(first.output());
  const made = await operator.run(['accounts', 'create', '--name', 'Escrow split kill', '--json']);
  expect(made.code, made.stderr).toBe(0);
  const a = JSON.parse(made.stdout) as { id: string; public_token: string; private_token: string };
  const e: Credentials = {
    accountId: a.id,
    publicToken: a.public_token,
    privateToken: a.private_token,
  };
  expect((await operator.run(['accounts', 'set-escrow', e.accountId])).code).toBe(0);
  const client = await call(baseUrl, m, 'POST', '/api/maclient', {
    email: 'client@example.com',
    name: 'Client',
    phone: '923122312',
    bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
  });
  const membership = await call(baseUrl, m, 'POST', '/api/maaffiliation', {
    name: 'market',
    percentage: '33.33',
    affiliation: [[client.json.id, '66.67']],
  });
  expect(membership.status, membership.text).toBe(200);
  const ev = await call(baseUrl, m, 'POST', '/api/event', {
    name: 'Kill event',
    event: 'split-kill',
    date_event: santiagoDate(2),
    date_payment: santiagoDate(3),
    date_closing_sales: santiagoDate(2),
    service_sale: 100,
    affiliation: [
      ['afiliate1@example.com', 30],
      ['afiliate2@example.com', 45.5],
    ],
  });
  expect(ev.status, ev.text).toBe(200);

  const checkouts: Checkout[] = [];
  for (let i = 0; i < perKind; i++) {
    checkouts.push(
      await createCheckout(baseUrl, m, `mk-${i}`, 9_701 + i, {
        marketplace: membership.json.token,
      }),
    );
    checkouts.push(
      await createCheckout(baseUrl, m, `ev-${i}`, 15_051 + i, { event: 'split-kill' }),
    );
    checkouts.push(await createCheckout(baseUrl, e, `es-${i}`, 5_000 + i, {}));
    checkouts.push(await createCheckout(baseUrl, m, `pl-${i}`, 2_000 + i, {}));
  }

  const paidBefore = new Set<string>();
  await sendThenKill(
    checkouts,
    inFlightMax,
    async (c) => {
      const page = await payCheckout(baseUrl, c);
      if (page === null) return false;
      if (page.includes(paidMarker)) paidBefore.add(c.id);
      return true;
    },
    checkouts.length * (0.1 + Math.random() * 0.6),
    killer(first),
    killAfterMsMax,
  );
  expect(paidBefore.size).toBeLessThan(checkouts.length);

  const second = await startServe(env);
  try {
    await new Promise((resolve) => setTimeout(resolve, attemptLeaseMs));
    const pending = await resendUntilAnswered(
      checkouts,
      10,
      0,
      async (c) => (await payCheckout(baseUrl, c))?.includes(paidMarker) ?? false,
    );
    expect(pending.map((c) => c.id)).toEqual([]);
    // Settle everything, deposit the clients' shares, pay the beneficiaries.
    for (let day = 0; day < 5; day++)
      for (const who of [m, e]) {
        const advanced = await call(baseUrl, who, 'POST', '/api/sandbox/clock/advance', {
          days: 1,
        });
        expect(advanced.status, advanced.text).toBe(200);
      }
    const verify = await operator.run(['ledger', 'verify']);
    expect(verify.code, verify.stderr + verify.stdout).toBe(0);
    process.stdout.write(
      `kill-split-payments (${engine.name}): ${paidBefore.size} of ${checkouts.length} paid before the kill\n`,
    );
  } finally {
    await second.stop();
    await operator.close();
  }

  const data = await engine.open();
  try {
    const db = data.db;
    const twice = (
      await sql<{ reference: string; kind: string; n: string }>`
      SELECT reference, kind, COUNT(*)::text AS n FROM journal_entries
      WHERE kind IN ('transaction.capture', 'transaction.settlement', 'marketplace_split', 'event_sale_split',
                     'marketplace_client_deposit')
        AND reference IN (SELECT id FROM transactions WHERE account_id IN (${m.accountId}, ${e.accountId}))
      GROUP BY reference, kind HAVING COUNT(*) > 1`.execute(db)
    ).rows;
    expect(twice).toEqual([]);
    const rows = (
      await sql<{
        id: string;
        status: string;
        captures: string;
        splits: string;
        ext: string | null;
      }>`
      SELECT t.id, t.status, t.extension AS ext,
        (SELECT COUNT(*) FROM journal_entries j WHERE j.reference = t.id AND j.kind = 'transaction.capture')::text AS captures,
        (SELECT COUNT(*) FROM journal_entries j WHERE j.reference = t.id
          AND j.kind IN ('marketplace_split', 'event_sale_split'))::text AS splits
      FROM transactions t WHERE t.id = ANY(${checkouts.map((c) => c.id)})`.execute(db)
    ).rows;
    expect(rows).toHaveLength(checkouts.length);
    expect(rows.filter((r) => r.status !== 'success' || r.captures !== '1')).toEqual([]);
    expect(rows.filter((r) => r.ext !== null && r.splits !== '1')).toEqual([]);
    const sum = async (q: ReturnType<typeof sql<{ x: string }>>) =>
      BigInt((await q.execute(db)).rows[0]!.x);
    const shares = await sum(sql<{ x: string }>`SELECT COALESCE(SUM(amount_minor), 0)::text AS x
      FROM ma_payment_shares WHERE account_id = ${m.accountId} AND status = 'paid'`);
    const sharesAll = await sum(sql<{ x: string }>`SELECT COALESCE(SUM(amount_minor), 0)::text AS x
      FROM ma_payment_shares WHERE account_id = ${m.accountId}`);
    expect(shares).toBe(sharesAll);
    const owed = await sum(sql<{ x: string }>`SELECT COALESCE(SUM(x.amount_minor), 0)::text AS x
      FROM event_sale_shares x JOIN event_sales s ON s.transaction_id = x.transaction_id
      WHERE s.account_id = ${m.accountId}`);
    const paidOut = await sum(sql<{ x: string }>`SELECT COALESCE(SUM(b.paid_minor), 0)::text AS x
      FROM event_beneficiaries b JOIN events v ON v.id = b.event_id WHERE v.account_id = ${m.accountId}`);
    expect(paidOut).toBe(owed);
    const grossM = checkouts.filter((c) => c.who === m).reduce((s, c) => s + c.amount, 0);
    const grossE = checkouts.filter((c) => c.who === e).reduce((s, c) => s + c.amount, 0);
    const bal = (owner: string, code: string) =>
      sum(sql<{ x: string }>`SELECT COALESCE((SELECT balance_minor FROM ledger_accounts
        WHERE owner = ${owner} AND code = ${code} AND currency = 'CLP'), 0)::text AS x`);
    expect(await bal(m.accountId, 'pending_settlement')).toBe(0n);
    expect(await bal(m.accountId, 'wallet_available')).toBe(BigInt(grossM) - sharesAll - owed);
    expect(await bal(e.accountId, 'pending_settlement')).toBe(0n);
    expect(await bal(e.accountId, 'escrow_held')).toBe(BigInt(grossE));
  } finally {
    await data.close();
  }
}

describe('kill -9 among split, event and escrow payments, restart, pay again', () => {
  it('pays and divides every sale exactly once', { timeout: 180_000 }, async () => {
    const engine = await suiteEngine();
    try {
      await scenario(engine);
    } finally {
      await engine.dispose();
    }
  });
});

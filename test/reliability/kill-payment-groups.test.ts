// Payments' successes in a group commit across a power cut (decision 615): one merchant's checkouts are paid with an
// approved card, many at once, against a real `cobro serve`, which is killed with SIGKILL mid-flight and restarts on
// the same data. A group commits whole or not at all, so every payment a payer saw paid stays paid, and no payment
// is ever recorded twice. After the restart every checkout is paid again as a payer would: one whose claim died
// with the server is free once the claim's lease has passed (ATTEMPT_LEASE_MS, waited out: a lease is on the
// service clock, which the sandbox clock does not move, decision 760), and one already paid
// answers its result without a second charge. In the end each is paid exactly once: one capture, one callback, the
// merchant's money equal to the nets, the ledger clean.
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
  sendThenKill,
  type Credentials,
} from './load.ts';

const paymentsPlanned = 120;
const killAtAnsweredShare = 0.3;
const killAfterMsMax = 4_000;
/** Enough for groups of several successes of the one merchant. */
const paymentsInFlightMax = 24;
const retryRoundsMax = 10;
const paidMarker = 'data-testid="result">Pago exitoso<';
/** ATTEMPT_LEASE_MS: how long a claim the kill left behind holds its checkout (2 minutes by default). */
const attemptLeaseMs = 3_000;

interface Checkout {
  readonly id: string;
  readonly valid: string;
}

async function createCheckout(baseUrl: string, who: Credentials, i: number): Promise<Checkout> {
  const res = await call(baseUrl, who, 'POST', '/api/transaction', {
    email: 'payer@example.com',
    order: `kill-pay-${i}`,
    subject: 'Payment group kill',
    amount: 1000 + i,
    urlnotify: 'https://merchant.example/notify',
  });
  expect(res.status, res.text).toBe(200);
  const q = new URL(String(res.json.url)).searchParams;
  return { id: q.get('id')!, valid: q.get('valid')! };
}

async function scenario(engine: Engine): Promise<void> {
  const { env, baseUrl } = await serveOn(engine, { ATTEMPT_LEASE_MS: String(attemptLeaseMs) });
  // Operator commands without a process of their own (races.ts): the kill is the server's, not theirs.
  const operator = await operatorOn(engine, env);
  const first = await startServe(env);
  const merchant = demoCredentials(first.output());
  const checkouts: Checkout[] = [];
  for (let i = 0; i < paymentsPlanned; i++)
    checkouts.push(await createCheckout(baseUrl, merchant, i));

  const paidBefore = new Set<string>();
  await sendThenKill(
    checkouts,
    paymentsInFlightMax,
    async (c) => {
      const page = await payCheckout(baseUrl, c);
      if (page === null) return false;
      if (page.includes(paidMarker)) paidBefore.add(c.id);
      return true;
    },
    paymentsPlanned * killAtAnsweredShare,
    killer(first),
    killAfterMsMax,
  );
  expect(paidBefore.size).toBeLessThan(paymentsPlanned);

  const second = await startServe(env);
  const restartedAt = new Date();
  try {
    // A claim the kill left behind holds its checkout for the lease: wait it out.
    await new Promise((resolve) => setTimeout(resolve, attemptLeaseMs));
    let pending = checkouts;
    let rounds = 0;
    for (; rounds < retryRoundsMax && pending.length > 0; rounds++) {
      const pages = await Promise.all(pending.map((c) => payCheckout(baseUrl, c)));
      pending = pending.filter((_, i) => !(pages[i]?.includes(paidMarker) ?? false));
    }
    expect(pending.map((c) => c.id)).toEqual([]);
    process.stdout.write(
      `kill-payment-groups (${engine.name}): ${paidBefore.size} of ${paymentsPlanned} seen paid before the kill, all paid after ${rounds} round(s)\n`,
    );
    const verify = await operator.run(['ledger', 'verify']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^ledger clean/);
  } finally {
    await second.stop();
    await operator.close();
  }

  const data = await engine.open();
  try {
    const ids = checkouts.map((c) => c.id);
    const rows = (
      await sql<{
        id: string;
        status: string;
        ended_at: Date;
        captures: string;
        callbacks: string;
      }>`
        SELECT t.id, t.status, t.ended_at,
          (SELECT count(*) FROM journal_entries j
            WHERE j.reference = t.id AND j.kind = 'transaction.capture')::text AS captures,
          (SELECT count(*) FROM notifications n
            WHERE n.account_id = t.account_id AND n.event_type = 'transaction.result'
              AND n.payload->>'transaction_id' = t.number::text)::text AS callbacks
        FROM transactions t WHERE t.id = ANY(${ids})`.execute(data.db)
    ).rows;
    expect(rows).toHaveLength(paymentsPlanned);
    // Every payment paid once: its capture once, its callback once, whatever the kill cut.
    expect(
      rows.filter((r) => r.status !== 'success' || r.captures !== '1' || r.callbacks !== '1'),
    ).toEqual([]);
    // What a payer saw paid before the kill was committed then, not paid again after the restart (the clock was
    // moved minutes ahead before any payment after it).
    const late = rows.filter(
      (r) => paidBefore.has(r.id) && r.ended_at.getTime() >= restartedAt.getTime(),
    );
    expect(late).toEqual([]);
  } finally {
    await data.close();
  }
}

describe('kill -9 among grouped payments of one merchant, restart, pay again', () => {
  it('pays every checkout exactly once', { timeout: 180_000 }, async () => {
    const engine = await suiteEngine();
    try {
      await scenario(engine);
    } finally {
      await engine.dispose();
    }
  });
});

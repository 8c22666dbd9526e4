// Exactly once across a power cut (decision 071): a real `cobro serve` takes a few hundred payments, payouts,
// partial refunds of paid sales and charges on a subscription's enrolled card, each with its own Idempotency-Key
// and order, is killed with SIGKILL mid-flight, restarts on the same data, and every request is retried with the
// same key and body until it has an answer. Nothing may run twice: one transaction per order, one payout per
// order, one refund per sale, the wallet down by exactly the payouts, the ledger clean, and every answer the
// client saw before the kill replayed byte for byte.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { computeSign } from '../../src/platform/auth/sign.ts';
import { startServe } from '../support/cli.ts';
import { serveOn, suiteEngine, type Engine } from './engines.ts';
import { operatorOn } from './races.ts';
import {
  demoCredentials,
  httpTransport,
  killer,
  plan,
  planRefundsAndCharges,
  retryUntilAnswered,
  send,
  sendThenKill,
  type Answer,
  type Credentials,
} from './load.ts';
import { paidSale, subscribe } from './simulation.ts';

const transactionsPlanned = 220;
const payoutsPlanned = 40;
/** Paid before the load starts; each gets one partial refund in the load. */
const refundsPlanned = 24;
const chargesPlanned = 24;
const fundingMinor = 1_000_000;
/** The kill comes once this share of the first answers arrived, or after killAfterMsMax, whichever is first. */
const killAtAnsweredShare = 0.3;
const killAfterMsMax = 4_000;
/** Requests waiting for an answer at once: enough for payout groups and concurrent refunds and charges. */
const requestsInFlightMax = 48;

async function walletAvailable(baseUrl: string, who: Credentials): Promise<number> {
  const res = await fetch(`${baseUrl}/api/wallet?currency=CLP`, {
    headers: {
      authorization: `Bearer ${who.publicToken}`,
      sign: computeSign(who.privateToken, '/api/wallet', { currency: 'CLP' }),
    },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { amount_available: number }).amount_available;
}

async function scenario(engine: Engine): Promise<void> {
  const { env, baseUrl } = await serveOn(engine, { IDEMPOTENCY_LEASE_MS: String(leaseMs) });
  // Operator commands without a process of their own (races.ts): the kill is the server's, not theirs.
  const operator = await operatorOn(engine, env);
  const startedAt = Date.now();
  const first = await startServe(env);
  const firstStartMs = Date.now() - startedAt;
  const who = demoCredentials(first.output());
  const funded = await fetch(`${baseUrl}/api/sandbox/wallet/credit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${who.publicToken}` },
    body: JSON.stringify({ amount: fundingMinor, currency: 'CLP', reason: 'kill and retry' }),
  });
  expect(funded.status).toBe(200);

  const run = `r${Date.now().toString(36)}`;
  const io = httpTransport(baseUrl, async () => {}, { count: 0 });
  const merchant = {
    id: who.accountId,
    publicToken: who.publicToken,
    privateToken: who.privateToken,
    subscription: null,
  };
  const sales: string[] = [];
  for (let i = 0; i < refundsPlanned; i++)
    sales.push(await paidSale(io, merchant, `${run}-s-${i}`));
  const extras = planRefundsAndCharges(run, sales, await subscribe(io, merchant), chargesPlanned);
  // Every fourth request a refund or a charge, so the kill finds them in flight among the rest.
  const requests = plan(run, transactionsPlanned, payoutsPlanned)
    .flatMap((r, i) => (i % 4 === 3 && extras.length > 0 ? [r, extras.shift()!] : [r]))
    .concat(extras);
  const seen = new Map<string, Answer>();
  await sendThenKill(
    requests,
    requestsInFlightMax,
    async (r) => {
      const answer = await send(baseUrl, who, r);
      if (answer === null || answer.status !== 200) return false;
      seen.set(r.key, answer);
      return true;
    },
    requests.length * killAtAnsweredShare,
    killer(first),
    killAfterMsMax,
  );
  const answeredBeforeKill = seen.size;
  expect(answeredBeforeKill).toBeLessThan(requests.length);

  const restartStarted = Date.now();
  const second = await startServe(env);
  const restartMs = Date.now() - restartStarted;
  let answers: Map<string, Answer>;
  const retryStarted = Date.now();
  let retryMs = 0;
  try {
    answers = await retryUntilAnswered(baseUrl, who, requests, 32, 20);
    retryMs = Date.now() - retryStarted;
    expect(await walletAvailable(baseUrl, who)).toBe(
      fundingMinor -
        requests.filter((r) => r.kind === 'payout').reduce((sum, r) => sum + r.amountMinor, 0),
    );
    // While the server runs: on PGlite the command goes through its operator socket, as `cobro ledger verify` would.
    const verify = await operator.run(['ledger', 'verify']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^ledger clean/);
  } finally {
    await second.stop();
    await operator.close();
  }
  console.info(
    `kill-retry: first start ${firstStartMs} ms, ${answeredBeforeKill}/${requests.length} answered before SIGKILL, restart ${restartMs} ms, retries ${retryMs} ms`,
  );

  for (const r of requests) {
    const answer = answers.get(r.key)!;
    expect(answer.status, r.order).toBe(200);
    expect(JSON.parse(answer.body).status, `${r.order}: ${answer.body}`).toBe(
      r.kind === 'transaction' ? 'pending' : 'success',
    );
    const before = seen.get(r.key);
    if (before !== undefined) {
      expect(answer.replayed, r.order).toBe(true);
      expect(answer.body, r.order).toBe(before.body);
    }
  }

  const data = await engine.open();
  try {
    const perOrder = async (table: 'transactions' | 'payouts') =>
      (
        await sql<{ order: string; n: string }>`
      SELECT "order", COUNT(*)::text AS n FROM ${sql.table(table)} WHERE account_id = ${who.accountId} GROUP BY "order"`.execute(
          data.db,
        )
      ).rows;
    const transactions = await perOrder('transactions');
    const payouts = await perOrder('payouts');
    expect(transactions.filter((row) => row.n !== '1')).toEqual([]);
    expect(payouts.filter((row) => row.n !== '1')).toEqual([]);
    expect(transactions.length).toBe(transactionsPlanned + refundsPlanned + chargesPlanned);
    expect(payouts.length).toBe(payoutsPlanned);
    const refunds = await sql<{
      transaction_id: string;
      n: string;
    }>`SELECT transaction_id, COUNT(*)::text AS n FROM nullifications
      WHERE account_id = ${who.accountId} GROUP BY transaction_id`.execute(data.db);
    expect(refunds.rows.map((row) => [row.transaction_id, row.n]).sort()).toEqual(
      sales.map((id) => [id, '1']).sort(),
    );
  } finally {
    await data.close();
  }
}

/**
 * A refund or a subscription charge calls the processor after its commit (the runner's afterCommit step): killed in
 * between, its key stays claimed for the lease and a retry meanwhile gets 409, then takes the claim over and runs
 * that step again (decision 071). A 2-second lease keeps that wait inside the test's budget.
 */
const leaseMs = 2_000;

describe('kill -9 under load, restart, retry with the same keys', () => {
  it('runs every command exactly once', { timeout: 120_000 }, async () => {
    const engine = await suiteEngine();
    try {
      await scenario(engine);
    } finally {
      await engine.dispose();
    }
  });
});

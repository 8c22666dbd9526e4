// Group commit across a power cut (decisions 220 and 280): keyless payouts of four wallets (four merchants), written
// in lane groups that share one transaction and may hold several wallets, are fired at a real `cobro serve`, which
// is killed with SIGKILL mid-flight, restarts on the same data, and every payout is sent again with the same order
// and body (no Idempotency-Key: the order is what makes a payout once, supplement §4.4). A group commits whole or
// not at all: every payout ends once, every answer seen before the kill names the payout the retry finds, each
// wallet is down by exactly its payouts, the ledger clean.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { computeSign } from '../../src/platform/auth/sign.ts';
import { startServe } from '../support/cli.ts';
import { serveOn, suiteEngine, type Engine } from './engines.ts';
import { operatorOn } from './races.ts';
import {
  demoCredentials,
  killer,
  resendUntilAnswered,
  sendThenKill,
  type Credentials,
} from './load.ts';

const payoutsPlanned = 160;
const fundingMinor = 1_000_000;
const killAtAnsweredShare = 0.3;
const killAfterMsMax = 4_000;
/** Enough for groups of several payouts on each of the four wallets at once. */
const payoutsInFlightMax = 32;
const retryRoundsMax = 20;
/** The demo merchant and this many more, created through the CLI while the server runs. */
const merchantsMore = 3;

interface Payout {
  readonly who: Credentials;
  readonly order: string;
  readonly body: Record<string, unknown>;
}
interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
}

function planPayouts(run: string, merchants: readonly Credentials[]): Payout[] {
  return Array.from({ length: payoutsPlanned }, (_, i) => {
    const order = `${run}-p-${i}`;
    return {
      who: merchants[i % merchants.length]!,
      order,
      body: {
        email: 'johndoe@example.com',
        subject: 'Group commit kill',
        currency: 'CLP',
        order,
        amount: 100 + i,
        accountbank_name: 'Jhon Doe',
        accountbank_rut: '111111111',
        accountbank_sbif: '0001',
        accountbank_type: '1',
        accountbank_num: '12312312312',
      },
    };
  });
}

/** One keyless attempt; null when the connection broke or the server was not there. */
async function send(baseUrl: string, p: Payout): Promise<Answer | null> {
  const who = p.who;
  try {
    const res = await fetch(`${baseUrl}/api/wallet/payout`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${who.publicToken}`,
        sign: computeSign(who.privateToken, '/api/wallet/payout', p.body),
      },
      body: JSON.stringify(p.body),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  } catch {
    return null;
  }
}

async function scenario(engine: Engine): Promise<void> {
  const { env, baseUrl } = await serveOn(engine);
  // Operator commands without a process of their own (races.ts): the kill is the server's, not theirs.
  const operator = await operatorOn(engine, env);
  const first = await startServe(env);
  const merchants: Credentials[] = [demoCredentials(first.output())];
  for (let i = 0; i < merchantsMore; i++) {
    const created = await operator.run([
      'accounts',
      'create',
      '--name',
      `Group kill ${i}`,
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const a = JSON.parse(created.stdout) as {
      id: string;
      public_token: string;
      private_token: string;
    };
    merchants.push({ accountId: a.id, publicToken: a.public_token, privateToken: a.private_token });
  }
  for (const who of merchants) {
    const funded = await fetch(`${baseUrl}/api/sandbox/wallet/credit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${who.publicToken}` },
      body: JSON.stringify({ amount: fundingMinor, currency: 'CLP', reason: 'group commit kill' }),
    });
    expect(funded.status).toBe(200);
  }

  const payouts = planPayouts(`g${Date.now().toString(36)}`, merchants);
  const seen = new Map<string, Answer>();
  await sendThenKill(
    payouts,
    payoutsInFlightMax,
    async (p) => {
      const answer = await send(baseUrl, p);
      if (answer === null || answer.status !== 200) return false;
      seen.set(p.order, answer);
      return true;
    },
    payoutsPlanned * killAtAnsweredShare,
    killer(first),
    killAfterMsMax,
  );
  expect(seen.size).toBeLessThan(payoutsPlanned);

  const second = await startServe(env);
  const answers = new Map<string, Answer>();
  try {
    const pending = await resendUntilAnswered(payouts, retryRoundsMax, 0, async (p) => {
      const answer = await send(baseUrl, p);
      if (answer === null || answer.status >= 500) return false;
      answers.set(p.order, answer);
      return true;
    });
    expect(pending).toEqual([]);
    for (const who of merchants) {
      const spentMinor = payouts
        .filter((p) => p.who === who)
        .reduce((sum, p) => sum + Number(p.body.amount), 0);
      const wallet = await fetch(`${baseUrl}/api/wallet?currency=CLP`, {
        headers: {
          authorization: `Bearer ${who.publicToken}`,
          sign: computeSign(who.privateToken, '/api/wallet', { currency: 'CLP' }),
        },
      });
      expect(
        ((await wallet.json()) as { amount_available: number }).amount_available,
        who.accountId,
      ).toBe(fundingMinor - spentMinor);
    }
    const verify = await operator.run(['ledger', 'verify']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^ledger clean/);
  } finally {
    await second.stop();
    await operator.close();
  }

  for (const p of payouts) {
    const answer = answers.get(p.order)!;
    expect(answer.status, p.order).toBe(200);
    expect(answer.json.status, `${p.order}: ${JSON.stringify(answer.json)}`).toBe('success');
    // An answer given before the kill was committed: the retry finds that very payout.
    const before = seen.get(p.order);
    if (before !== undefined)
      expect(answer.json.identifier_payout, p.order).toBe(before.json.identifier_payout);
  }
  const data = await engine.open();
  try {
    const accountIds = merchants.map((m) => m.accountId);
    const perOrder = (
      await sql<{ order: string; n: string }>`
      SELECT "order", COUNT(*)::text AS n FROM payouts WHERE account_id = ANY(${accountIds}) GROUP BY "order"`.execute(
        data.db,
      )
    ).rows;
    expect(perOrder.filter((row) => row.n !== '1')).toEqual([]);
    expect(perOrder.length).toBe(payoutsPlanned);
  } finally {
    await data.close();
  }
}

describe('kill -9 among grouped keyless payouts of four wallets, restart, send again', () => {
  it('pays every order once', { timeout: 120_000 }, async () => {
    const engine = await suiteEngine();
    try {
      await scenario(engine);
    } finally {
      await engine.dispose();
    }
  });
});

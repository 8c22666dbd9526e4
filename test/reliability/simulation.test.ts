// Issue 14 point 5: the seeded simulation. A deterministic PRNG (SIM_SEED, or a random seed printed with any
// failure so the run can be replayed with SIM_SEED=...) interleaves many merchants' payments on the hosted
// checkout, refunds, payouts, withdrawals, credits, subscription charges, clock advances (which settle and expire)
// and retries with an earlier Idempotency-Key, through app.inject. After every batch of steps: the ledger verifies as
// `cobro ledger verify` does (every journal and all balances sum to zero, every balance equals its postings, no
// non-negative account below zero), no wallet is negative, and every acknowledged transaction, payment, payout and
// refund exists exactly once. SIM_STEPS sets the steps (default 1000), SIM_CHECK_EVERY how often the checks run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';
import {
  checkWorld,
  prng,
  seedFromEnv,
  Simulation,
  subscribe,
  type Merchant,
  type Transport,
} from './simulation.ts';

const steps = Number(process.env.SIM_STEPS ?? 1000);
const merchantsCount = 6;
// After every step on PostgreSQL; every 10 steps on PGlite, where the ledger's verify (which reads every posting)
// costs more than a step once the ledger holds a few thousand postings. A failing seed replays with
// SIM_CHECK_EVERY=1 to find the first step that broke it.
const checkEvery = Number(
  process.env.SIM_CHECK_EVERY ?? (process.env.DATABASE_URL !== undefined ? 1 : 10),
);
const seed = seedFromEnv();
let t: TestApp;
let merchants: Merchant[];

const transport = (): Transport => ({
  async api(who, method, url, body, key) {
    const res = await t.call(
      { ...who, webhookSecret: '' },
      {
        method,
        url,
        body,
        sign: true,
        headers: key === undefined ? {} : { 'idempotency-key': key },
      },
    );
    return {
      status: res.statusCode,
      text: res.body,
      replayed: res.headers['idempotent-replayed'] === 'true',
    };
  },
  async form(pathAndQuery, fields) {
    const res = await t.app.inject({
      method: 'POST',
      url: pathAndQuery,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
    return { status: res.statusCode, text: res.body, replayed: false };
  },
});

beforeAll(async () => {
  t = await startTestApp();
  merchants = [];
  for (let i = 0; i < merchantsCount; i++) {
    const a = await t.createAccount(`Sim ${i}`);
    const m: Merchant = { ...a, subscription: null };
    if (i % 2 === 0) m.subscription = await subscribe(transport(), m);
    merchants.push(m);
  }
}, 120_000);
afterAll(async () => {
  await t.close();
});

describe('seeded simulation', () => {
  it('keeps the ledger, the wallets and exactly-once through every batch of steps', {
    timeout: 300_000,
  }, async () => {
    const sim = new Simulation(prng(seed), merchants, `s${seed}`);
    const io = transport();
    const started = Date.now();
    let step = 0;
    const timing: Record<string, number> = {};
    try {
      for (step = 1; step <= steps; step++) {
        const { op, who } = sim.choose();
        const t0 = performance.now();
        await sim.step(io, op, who);
        timing[op] = (timing[op] ?? 0) + performance.now() - t0;
        if (step % checkEvery === 0)
          await checkWorld(t.ctx.db, sim.model, merchants, () => verifyLedger(t.ctx.db));
      }
    } catch (error) {
      throw new Error(
        `simulation failed at step ${step} of SIM_SEED=${seed} (replay: SIM_SEED=${seed} SIM_STEPS=${step} SIM_CHECK_EVERY=1 npx vitest run --project unit test/reliability/simulation.test.ts): ${(error as Error).message}`,
        { cause: error },
      );
    }
    await checkWorld(t.ctx.db, sim.model, merchants, () => verifyLedger(t.ctx.db));
    const journals = await verifyLedger(t.ctx.db);
    console.info(
      `simulation: SIM_SEED=${seed}, ${steps} steps in ${Date.now() - started} ms, ${merchantsCount} merchants, ops ${JSON.stringify(sim.model.counts)}, mean ms per op ${JSON.stringify(Object.fromEntries(Object.entries(timing).map(([k, v]) => [k, Math.round(v / sim.model.counts[k]!)])))}, checked every ${checkEvery} steps, ${journals.ok ? journals.journals : '?'} journals`,
    );
    expect(journals.ok).toBe(true);
  });
});

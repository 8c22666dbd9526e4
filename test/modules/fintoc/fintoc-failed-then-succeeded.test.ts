// Decision 1012 (decision 965 left it unverified): Fintoc sends `payment_intent.failed` for a sale's intent, and
// later `payment_intent.succeeded` for the same intent (the bank confirmed the transfer after all). The money must end
// up recorded once, never lost, never doubled. A sale still payable is paid by the late success (decision 1055,
// fintoc-late-success-pays.test.ts); here a second try paid the sale meanwhile, so the later payment is reported (an
// error logged at once; `cobro fintoc reconcile` shows it as an unmatched movement) and the sale is not paid twice.
// Through Fintoc's signed webhook against the simulator and the CLI.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { startFintocSimulator, type FintocSimulator } from '../../support/fintoc-simulator.ts';
import { fintocShop, fintocWebhook, openFintocSession } from '../../support/fintoc-shop.ts';
import { capturesOf, linkParams, saleStatusOf } from '../transactions/helpers.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';

let t: TestApp;
let sim: FintocSimulator;
let shop: TestAccount;
const errors: { msg: string; transaction?: string }[] = [];

beforeAll(async () => {
  sim = await startFintocSimulator();
  const logger = pino(
    { level: 'error' },
    new Writable({
      write(chunk, _encoding, done) {
        errors.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  t = await startTestApp({
    env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'fe'.repeat(32) },
    logger,
  });
  ({ shop } = await fintocShop(t, sim, 'Tienda Fallida', { payouts: { fundMinor: 10_000 } }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/** The payer pays at Fintoc's page; the intent as Fintoc's payment_intent.* events carry it (with its metadata). */
async function paidIntent(order: string, amount: number) {
  const { sale, session } = await openFintocSession(t, shop, order, amount);
  const back = await fetch(`${sim.url}/pay/${session}/paid`, { redirect: 'manual' });
  expect(back.status).toBe(303);
  const s = sim.sessions.get(session)!;
  const intent = (s.payment_resource as { payment_intent: Record<string, unknown> }).payment_intent;
  return { sale, session, intent: { ...intent, metadata: s.metadata } as Record<string, unknown> };
}

/** The payer comes back to the sale's link, chooses Fintoc again and pays: the new intent. */
async function paidAgain(saleUrl: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/gateway/cobro',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...linkParams(saleUrl), method: '19' }).toString(),
  });
  const link = /<a class="button" href="([^"]+)" data-testid="continue-fintoc">/.exec(res.body);
  expect(link, res.body).not.toBeNull();
  const session = link![1]!.split('/').pop()!;
  await fetch(`${sim.url}/pay/${session}/paid`, { redirect: 'manual' });
  const s = sim.sessions.get(session)!;
  const intent = (s.payment_resource as { payment_intent: Record<string, unknown> }).payment_intent;
  return { ...intent, metadata: s.metadata } as Record<string, unknown>;
}

const webhook = (type: string, data: Record<string, unknown>) =>
  fintocWebhook(t, sim, shop, type, data);

async function reconcile() {
  const out = await dispatch(['fintoc', 'reconcile', '--account', shop.id, '--json'], t.ctx);
  expect(out.stderr).toBe('');
  return {
    exitCode: out.exitCode,
    findings: JSON.parse(out.stdout).findings as { kind: string; subject: string }[],
  };
}

describe('payment_intent.failed, then payment_intent.succeeded for the same intent', () => {
  it('a sale paid by a second try is paid once; the first intent late success is reported, not counted', async () => {
    const first = await paidIntent('fail-ok-2', 9000);
    expect(await webhook('payment_intent.failed', { ...first.intent, status: 'failed' })).toBe(
      'declined',
    );
    // The payer tries again within the sale's attempts and pays.
    const second = { intent: await paidAgain(first.sale.url) };
    expect(second.intent.id).not.toBe(first.intent.id);
    expect(await webhook('payment_intent.succeeded', { ...second.intent })).toBe('approved');
    errors.length = 0;
    await webhook('payment_intent.succeeded', { ...first.intent, status: 'succeeded' });
    expect(errors.filter((e) => e.transaction === first.sale.id).map((e) => e.msg)).toEqual([
      'Fintoc payment of a sale decided otherwise: refund it by hand',
    ]);
    expect(await saleStatusOf(t, first.sale.id)).toBe('success');
    expect(await capturesOf(t, first.sale.id)).toBe(1);
    const report = await reconcile();
    const mine = report.findings.filter(
      (f) =>
        f.subject === `mov_${String(first.intent.id)}` ||
        f.subject === `mov_${String(second.intent.id)}`,
    );
    expect(mine).toMatchObject([
      { kind: 'unmatched_movement', subject: `mov_${String(first.intent.id)}` },
    ]);
  });
});

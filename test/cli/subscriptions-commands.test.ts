// `cobro subscriptions list|show|cancel` and `cobro plans list|show|set-pricing` over subscriptions made through the
// API and the hosted enrolment page; cancel goes through the same service as DELETE /api/sususcription/{id}.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import {
  activeSubscription,
  createPlan,
  createSuClient,
} from '../modules/subscriptions/helpers.ts';

let t: TestApp;
let merchant: TestAccount;
let other: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Club Uno');
  other = await t.createAccount('Club Dos');
});
afterAll(async () => {
  await t.close();
});

const run = (...argv: string[]) => dispatch(argv, t.ctx);
const getSub = async (account: TestAccount, id: string) =>
  (await t.call(account, { method: 'GET', url: `/api/sususcription/${id}`, sign: true })).json();

describe('cobro subscriptions', () => {
  it('lists with filters and a bounded page, shows one with its cycles and log, and cancels it as DELETE does', async () => {
    const active = await activeSubscription(t, merchant, {
      name: 'Gold',
      type: 'fixed',
      amount: 9990,
    });
    const plan = await createPlan(t, merchant, { name: 'Silver', amount: 5000 });
    const client = await createSuClient(t, merchant, { email: 'waiting@example.com' });
    const registered = (
      await t.call(merchant, {
        method: 'POST',
        url: '/api/sususcription',
        sign: true,
        body: { plan, client },
      })
    ).json().id as string;
    const foreign = await activeSubscription(t, other);
    const consumption = await activeSubscription(t, merchant);
    await t.call(merchant, {
      method: 'POST',
      url: '/api/sutransaction',
      sign: true,
      body: { suscription: consumption.id, amount: '1500', order: 'cli-1' },
    });

    const all = JSON.parse(
      (await run('subscriptions', 'list', '--account', merchant.id, '--json')).stdout,
    );
    expect(all.total).toBe(3);
    expect(all.subscriptions.map((s: { id: string }) => s.id)).toEqual([
      consumption.id,
      registered,
      active.id,
    ]);
    expect(all.subscriptions[0]).toMatchObject({
      status: 'active',
      account_id: merchant.id,
      plan: { id: consumption.plan, type: 'consumption' },
      amount: null,
      last_payment: { amount: 1500, status: 'success' },
    });
    expect(all.subscriptions[2]).toMatchObject({
      plan: { name: 'Gold', type: 'fixed' },
      amount: 9990,
      last_payment: null,
    });

    const onlyRegister = JSON.parse(
      (await run('subscriptions', 'list', '--status', 'register', '--json')).stdout,
    );
    expect(onlyRegister.subscriptions.map((s: { id: string }) => s.id)).toEqual([registered]);
    const byPlan = JSON.parse(
      (await run('subscriptions', 'list', '--plan', active.plan, '--json')).stdout,
    );
    expect(byPlan.subscriptions.map((s: { id: string }) => s.id)).toEqual([active.id]);
    const everyone = JSON.parse((await run('subscriptions', 'list', '--json')).stdout);
    expect(everyone.subscriptions.map((s: { id: string }) => s.id)).toContain(foreign.id);

    const page2 = await run(
      'subscriptions',
      'list',
      '--account',
      merchant.id,
      '--limit',
      '2',
      '--page',
      '2',
    );
    expect(page2.exitCode).toBe(0);
    expect(page2.stdout).toContain(active.id);
    expect(page2.stdout).not.toContain(registered);
    expect(page2.stdout).toContain('(3-3 of 3)');
    expect(
      (await run('subscriptions', 'list', '--account', merchant.id, '--page', '9')).stdout,
    ).toBe('no subscriptions on page 9 (3 in all)\n');
    for (const bad of [
      ['--status', 'paused'],
      ['--limit', '0'],
      ['--limit', '1001'],
      ['--page', 'x'],
    ]) {
      const out = await run('subscriptions', 'list', ...bad);
      expect(out.exitCode, bad.join(' ')).toBe(2);
      expect(out.stderr).toMatch(new RegExp(bad[0]!));
    }

    const shown = await run('subscriptions', 'show', consumption.id);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain(`account:     ${merchant.id}`);
    expect(shown.stdout).toMatch(/card: +Visa XXXXXXXXXXXX6623/);
    expect(shown.stdout).toMatch(/success +1500 CLP {2}transaction \d+ {2}order cli-1/);
    expect(shown.stdout).toMatch(/\(created\) -> register\n.* register -> active/);
    // A month on the account's clock: the fixed plan's first cycle is charged.
    expect(
      (
        await t.call(merchant, {
          method: 'POST',
          url: '/api/sandbox/clock/advance',
          body: { days: 40 },
        })
      ).statusCode,
    ).toBe(200);
    const json = JSON.parse((await run('subscriptions', 'show', active.id, '--json')).stdout);
    expect(json).toMatchObject({
      id: active.id,
      status: 'active',
      pricing: { type: 'fixed', amount: 9990, interval: 'month' },
      cycles: [{ number: 1, amount: 9990, status: 'success', try_number: 1 }],
      next_charge_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} /),
    });
    expect((await run('subscriptions', 'show', active.id)).stdout).toMatch(
      /cycles:\n {2}#1 {2}due \S+ \S+ {2}9990 CLP {2}success {2}try 1 {2}paid /,
    );
    expect(json.logs).toEqual((await getSub(merchant, active.id)).logs);
    expect((await run('subscriptions', 'show', 'su_nope')).stderr).toBe(
      'no subscription with id su_nope\n',
    );

    const cancelled = await run('subscriptions', 'cancel', active.id);
    expect(cancelled.exitCode).toBe(0);
    const after = await getSub(merchant, active.id);
    expect(after.status).toBe('cancel');
    expect(after.end).not.toBeNull();
    expect(after.logs.status.at(-1)).toMatchObject({
      initial_status: 'active',
      final_status: 'cancel',
    });
    const again = await run('subscriptions', 'cancel', active.id);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toBe(`subscription ${active.id} is cancel already: nothing to cancel\n`);
    expect((await getSub(merchant, active.id)).logs.status).toHaveLength(after.logs.status.length);
    expect((await run('subscriptions', 'cancel', 'su_nope')).exitCode).toBe(1);
    // A cancelled subscription is charged no more, as after DELETE.
    const refused = await t.call(merchant, {
      method: 'POST',
      url: '/api/sutransaction',
      sign: true,
      body: { suscription: active.id, amount: 10 },
    });
    expect(refused.json()).toMatchObject({ status: 'failed', type: 'subscription_not_chargeable' });
  });

  it('has help with examples', async () => {
    for (const name of ['list', 'show', 'cancel']) {
      const help = await run('subscriptions', name, '--help');
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toContain('Examples:');
      expect(help.stdout).toContain(`$ cobro subscriptions ${name}`);
    }
    expect((await run('completion', 'bash')).stdout).toMatch(/subscriptions\)[\s\S]*cancel/);
  });
});

describe('cobro plans', () => {
  it('sets the pricing of a plan created the reference way, and the API shows it', async () => {
    const plan = await createPlan(t, merchant, {
      name: 'Ref',
      url_notify_payment: 'http://127.0.0.1:9/pay',
    });
    const args = [
      'plans',
      'set-pricing',
      plan,
      '--amount',
      '9990',
      '--currency',
      'clp',
      '--interval',
      'month',
      '--interval-count',
      '1',
      '--type',
      'fixed',
      '--trial-days',
      '7',
      '--retries-max',
      '2',
    ];
    const out = await run(...args);
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toBe(`plan ${plan}: 9990 CLP every 1 month, 7 trial days, 2 retries\n`);
    const got = (
      await t.call(merchant, { method: 'GET', url: `/api/suplan/${plan}/`, sign: true })
    ).json().plans;
    expect(got).toMatchObject({
      type: 'fixed',
      amount: 9990,
      currency: 'CLP',
      interval: 'month',
      interval_count: 1,
      trial_days: 7,
      retries_max: 2,
      url_notify_payment: 'http://127.0.0.1:9/pay',
    });

    const weekly = JSON.parse(
      (
        await run(
          'plans',
          'set-pricing',
          plan,
          '--type',
          'variable',
          '--interval',
          'week',
          '--interval-count',
          '2',
          '--json',
        )
      ).stdout,
    );
    expect(weekly).toMatchObject({
      id: plan,
      type: 'variable',
      amount: null,
      interval: 'week',
      interval_count: 2,
      trial_days: 7,
    });

    const shown = await run('plans', 'show', plan);
    expect(shown.stdout).toContain(
      'pricing:       variable CLP every 2 week, 7 trial days, 2 retries',
    );
    const listed = JSON.parse(
      (await run('plans', 'list', '--account', merchant.id, '--json')).stdout,
    );
    expect(listed.find((p: { id: string }) => p.id === plan)).toMatchObject({
      account_id: merchant.id,
      type: 'variable',
      total_suscription: 0,
    });
    expect((await run('plans', 'list')).stdout).toMatch(
      new RegExp(`${plan}  ${merchant.id}  Ref  variable CLP every 2 week`),
    );
  });

  it('refuses bad pricing with a clear message and exit code, changing nothing', async () => {
    const plan = await createPlan(t, merchant, { name: 'Intacto' });
    const before = await t.ctx.db
      .selectFrom('su_plans')
      .selectAll()
      .where('id', '=', plan)
      .executeTakeFirstOrThrow();
    const cases: Array<[string[], number, string]> = [
      [[], 2, 'nothing to set: give at least one of --type'],
      [
        ['--amount', '99.5', '--type', 'fixed'],
        2,
        '--amount must be a whole number of CLP from 1 to 99999999999999',
      ],
      [['--amount', '0', '--type', 'fixed'], 2, '--amount must be a whole number'],
      [['--type', 'monthly'], 2, '--type must be one of fixed, variable, consumption'],
      [['--interval', 'fortnight'], 2, '--interval must be one of day, week, month, year'],
      [['--interval-count', '0'], 2, '--interval-count must be a whole number from 1 to 366'],
      [['--retries-max', '11'], 2, '--retries-max must be a whole number from 0 to 10'],
      [['--trial-days', '-1'], 2, '--trial-days must be a whole number from 0 to 3660'],
      [['--type', 'fixed'], 2, '--amount is required on a fixed plan'],
      [['--amount', '1000'], 2, '--amount not allowed on a consumption plan'],
      [
        ['--type', 'fixed', '--amount', '1000', '--currency', 'USD'],
        2,
        '--currency is invalid: CLP is the only currency',
      ],
    ];
    for (const [extra, code, message] of cases) {
      const out = await run('plans', 'set-pricing', plan, ...extra);
      expect(out.exitCode, extra.join(' ')).toBe(code);
      expect(out.stderr, extra.join(' ')).toContain(message);
    }
    expect((await run('plans', 'set-pricing', 'pl_nope', '--type', 'variable')).stderr).toBe(
      'no plan with id pl_nope\n',
    );
    expect(
      await t.ctx.db
        .selectFrom('su_plans')
        .selectAll()
        .where('id', '=', plan)
        .executeTakeFirstOrThrow(),
    ).toEqual(before);

    const sold = await activeSubscription(t, merchant, { name: 'Vendido' });
    const inUse = await run(
      'plans',
      'set-pricing',
      sold.plan,
      '--type',
      'fixed',
      '--amount',
      '100',
    );
    expect(inUse.exitCode).toBe(1);
    expect(inUse.stderr).toBe(
      `plan ${sold.plan} has 1 subscriptions not ended: its pricing stays as it is (decision 105)\n`,
    );
    expect(
      (
        await t.call(merchant, { method: 'GET', url: `/api/suplan/${sold.plan}`, sign: true })
      ).json().plans.type,
    ).toBe('consumption');
  });
});

// A card's Oneclick inscription is deleted at Transbank once no subscription of Cobro's can charge it (decision 990):
// the subscription ended by the merchant, its client deleted, its card removed; a removal Transbank fails is retried
// after a backoff, a worker that dies at Transbank leaves it due again, and an inscription another live subscription
// of the client still charges is kept. Through the app's routes and due work, the real `transbank-sdk` talking to
// the local simulator.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { OneclickSimulator } from '../../support/oneclick-simulator.ts';
import {
  oneclickEnrolled,
  startOneclickShop,
  oneclickVisa as visa,
} from '../../support/oneclick-shop.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { subscriptionLimits } from '../../../src/limits/index.ts';
import { createPlan, createSuClient } from './helpers.ts';

let t: TestApp;
let sim: OneclickSimulator;
let shop: TestAccount;
let plan: string;
beforeAll(async () => {
  ({ t, sim, shop } = await startOneclickShop('Club Depurado', 'ce'));
  plan = await createPlan(t, shop, { name: 'Plan depurado' });
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const newClient = () =>
  createSuClient(t, shop, { email: `d${Math.random().toString(16).slice(2)}@example.com` });

/** A subscription of `client` with a Visa registered on Transbank's page: its id and its live tbk_user there. */
async function enrolled(client: string): Promise<{ id: string; tbkUser: string }> {
  const { id, token } = await oneclickEnrolled(t, sim, shop, { plan, client, card: visa });
  const tbkUser = sim.inscriptions.get(token)!.tbkUser!;
  expect(sim.users.has(tbkUser)).toBe(true);
  return { id, tbkUser };
}

async function endSubscription(id: string) {
  const res = await t.call(shop, { method: 'DELETE', url: `/api/sususcription/${id}`, sign: true });
  expect(res.json()).toEqual({ id, status: 'success' });
}

/**
 * The next `n` deletes refused by Transbank (401, its keys refused): a failure that spends a try, where a busy answer
 * (429, 5xx) does not (decision 1065).
 */
function refuseDeletes(n: number) {
  sim.deleteFailures = n;
  sim.deleteFailureStatus = 401;
}
beforeEach(() => {
  sim.deleteFailureStatus = 500;
});

/** Beats of the due-work worker until no removal is left to send now (it sends a bounded number a beat). */
async function workRemovals() {
  for (let beat = 0; beat < 20; beat++) {
    const processed = await drainDueWork(t.ctx);
    if (processed['oneclick-card-removals'] === 0) return;
  }
  throw new Error('removals still due after 20 beats');
}

const deletesOf = (tbkUser: string) =>
  sim.calls.filter((c) => c.op === 'delete' && c.key === tbkUser).length;

async function removalOf(subscriptionId: string) {
  return t.ctx.db
    .selectFrom('oneclick_card_removals as r')
    .innerJoin('su_cards as c', 'c.id', 'r.card_id')
    .select(['r.state', 'r.tries', 'r.last_error'])
    .where('c.subscription_id', '=', subscriptionId)
    .executeTakeFirst();
}

describe('a subscription that can no longer charge its card', () => {
  it('ended by the merchant (DELETE /api/sususcription): its inscription is deleted at Transbank', async () => {
    const sub = await enrolled(await newClient());
    await endSubscription(sub.id);
    await drainDueWork(t.ctx);
    expect(sim.users.has(sub.tbkUser)).toBe(false);
    expect(await removalOf(sub.id)).toMatchObject({ state: 'done', tries: 1 });
  });

  it('its client deleted (DELETE /api/suclient): the inscriptions of its subscriptions are deleted', async () => {
    const client = await newClient();
    const [a, b] = [await enrolled(client), await enrolled(client)];
    const res = await t.call(shop, {
      method: 'DELETE',
      url: `/api/suclient/${client}`,
      sign: true,
    });
    expect(res.json()).toMatchObject({ status: 'success' });
    await workRemovals();
    expect(sim.users.has(a.tbkUser)).toBe(false);
    expect(sim.users.has(b.tbkUser)).toBe(false);
  });
});

describe('a removal Transbank fails', () => {
  it('is retried after its backoff, not before, and then deleted', async () => {
    const sub = await enrolled(await newClient());
    sim.deleteFailures = 1;
    await endSubscription(sub.id);
    await drainDueWork(t.ctx);
    expect(deletesOf(sub.tbkUser)).toBe(1);
    expect(sim.users.has(sub.tbkUser)).toBe(true);
    expect(await removalOf(sub.id)).toMatchObject({ state: 'due', tries: 1 });
    // Another run before the backoff sends nothing.
    await drainDueWork(t.ctx);
    expect(deletesOf(sub.tbkUser)).toBe(1);
    t.clock.advanceMs(subscriptionLimits.cardRemovalRetryFirstMs);
    await drainDueWork(t.ctx);
    expect(deletesOf(sub.tbkUser)).toBe(2);
    expect(sim.users.has(sub.tbkUser)).toBe(false);
    expect(await removalOf(sub.id)).toMatchObject({ state: 'done', tries: 2, last_error: null });
  });

  it('POST /api/suscriptionsdeletecards: the due work sends the delete (decision 1105) and retries a failure', async () => {
    const sub = await enrolled(await newClient());
    const card = await t.ctx.db
      .selectFrom('su_cards')
      .select('id')
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    sim.deleteFailures = 1;
    const removed = await t.call(shop, {
      method: 'POST',
      url: '/api/suscriptionsdeletecards',
      sign: true,
      body: { card: card.id },
    });
    expect(removed.json()).toMatchObject({ status: 'Delete', card: card.id });
    expect(deletesOf(sub.tbkUser)).toBe(0);
    await drainDueWork(t.ctx);
    expect(deletesOf(sub.tbkUser)).toBe(1);
    expect(sim.users.has(sub.tbkUser)).toBe(true);
    t.clock.advanceMs(subscriptionLimits.cardRemovalRetryFirstMs);
    await drainDueWork(t.ctx);
    expect(sim.users.has(sub.tbkUser)).toBe(false);
  });

  it('is given up after the last try, logged, and never sent again', async () => {
    const sub = await enrolled(await newClient());
    refuseDeletes(subscriptionLimits.cardRemovalTriesMax);
    await endSubscription(sub.id);
    for (let i = 0; i < subscriptionLimits.cardRemovalTriesMax + 2; i++) {
      await drainDueWork(t.ctx);
      t.clock.advanceMs(subscriptionLimits.cardRemovalRetryMsMax);
    }
    expect(deletesOf(sub.tbkUser)).toBe(subscriptionLimits.cardRemovalTriesMax);
    expect(await removalOf(sub.id)).toMatchObject({
      state: 'given_up',
      tries: subscriptionLimits.cardRemovalTriesMax,
    });
    expect(sim.deleteFailures).toBe(0);
  });
});

describe('a worker that dies while Transbank holds its delete', () => {
  it('leaves the removal due after the backoff: another worker deletes it, once; the late answer changes nothing', async () => {
    const sub = await enrolled(await newClient());
    await endSubscription(sub.id);
    let during: { early: number; late: number } | null = null;
    sim.whileDeleting = async () => {
      // The first worker is stuck at Transbank (or dead): a run now finds nothing due; after the backoff one does.
      await drainDueWork(t.ctx);
      const early = deletesOf(sub.tbkUser);
      t.clock.advanceMs(subscriptionLimits.cardRemovalRetryFirstMs);
      await drainDueWork(t.ctx);
      during = { early, late: deletesOf(sub.tbkUser) };
    };
    await drainDueWork(t.ctx);
    expect(during).toEqual({ early: 1, late: 2 });
    expect(sim.users.has(sub.tbkUser)).toBe(false);
    // The stuck try's 404 came after the second try had recorded the removal done: its record was left alone.
    expect(await removalOf(sub.id)).toMatchObject({ state: 'done', tries: 2 });
  });
});

describe('an inscription another live subscription of the client still charges', () => {
  it('is kept at Transbank when one subscription ends, and deleted when the last one does', async () => {
    const client = await newClient();
    const a = await enrolled(client);
    // Cobro's routes store each inscription on one card only; the same inscription on a second subscription of the
    // client is written here to hold the guard for any path that would share it.
    const b = await t.call(shop, {
      method: 'POST',
      url: '/api/sususcription',
      sign: true,
      body: { plan, client },
    });
    const bId = (b.json() as { id: string }).id;
    const cardA = await t.ctx.db
      .selectFrom('su_cards')
      .selectAll()
      .where('subscription_id', '=', a.id)
      .executeTakeFirstOrThrow();
    await t.ctx.db
      .insertInto('su_cards')
      .values({
        id: `${cardA.id.slice(0, -1)}z`,
        account_id: cardA.account_id,
        client_id: cardA.client_id,
        subscription_id: bId,
        brand: cardA.brand,
        last4: cardA.last4,
        processor_token: cardA.processor_token,
        created_at: cardA.created_at,
        deleted_at: null,
      })
      .execute();
    await endSubscription(a.id);
    await drainDueWork(t.ctx);
    expect(deletesOf(a.tbkUser)).toBe(0);
    expect(sim.users.has(a.tbkUser)).toBe(true);
    expect(await removalOf(a.id)).toMatchObject({ state: 'kept' });
    await endSubscription(bId);
    await drainDueWork(t.ctx);
    expect(sim.users.has(a.tbkUser)).toBe(false);
  });
});

describe("the operator's view of removals (decision 984)", () => {
  const run = (...argv: string[]) => dispatch(argv, t.ctx);
  const auditRows = async (card: string) =>
    t.ctx.db
      .selectFrom('audit_log')
      .select(['chain', 'action', 'target'])
      .where('action', '=', 'cobro subscriptions retry-removal')
      .where('target', '=', card)
      .execute();

  it('lists a given-up removal with its last error; retry-removal makes it due, audited, and the due work deletes it', async () => {
    const sub = await enrolled(await newClient());
    const { id: card } = await t.ctx.db
      .selectFrom('su_cards')
      .select('id')
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    refuseDeletes(subscriptionLimits.cardRemovalTriesMax);
    await endSubscription(sub.id);
    for (let i = 0; i < subscriptionLimits.cardRemovalTriesMax + 1; i++) {
      await drainDueWork(t.ctx);
      t.clock.advanceMs(subscriptionLimits.cardRemovalRetryMsMax);
    }
    expect(await removalOf(sub.id)).toMatchObject({ state: 'given_up' });

    const listed = await run(
      'subscriptions',
      'removals',
      '--status',
      'given_up',
      '--account',
      shop.id,
      '--json',
    );
    expect(listed.exitCode, listed.stderr).toBe(0);
    const page = JSON.parse(listed.stdout) as { removals: { card_id: string }[]; total: number };
    expect(page.total).toBe(page.removals.length);
    expect(page.removals.find((r) => r.card_id === card)).toMatchObject({
      state: 'given_up',
      account_id: shop.id,
      subscription_id: sub.id,
      tries: subscriptionLimits.cardRemovalTriesMax,
      refusals: subscriptionLimits.cardRemovalTriesMax,
      busy: 0,
      due_at: null,
      last_error: expect.stringContaining('401'),
    });
    const text = await run('subscriptions', 'removals', '--status', 'given_up');
    expect(text.stdout).toMatch(new RegExp(`^${card}  given_up .*${sub.id}.*last error: `, 'm'));
    expect(text.stdout).toContain(
      `${subscriptionLimits.cardRemovalTriesMax} tries (${subscriptionLimits.cardRemovalTriesMax} refused, 0 busy)`,
    );
    expect(
      (
        await run(
          'subscriptions',
          'removals',
          '--status',
          'kept',
          '--account',
          // An account with no removals (one that does not exist is refused: decision 1155).
          (
            await t.createAccount()
          ).id,
        )
      ).stdout,
    ).toBe('no card removals\n');

    // Bad input is refused with exit 2; an unknown card (decision 1155) or a removal that is not given up, with exit 1.
    for (const argv of [
      ['removals', '--status', 'failed'],
      ['removals', '--limit', '0'],
      ['removals', '--page', 'x'],
    ]) {
      const refused = await run('subscriptions', ...argv);
      expect(refused.exitCode, argv.join(' ')).toBe(2);
      expect(refused.stderr, argv.join(' ')).not.toBe('');
    }
    const unknownCard = await run('subscriptions', 'retry-removal', 'sure00000000000000000000');
    expect(unknownCard.exitCode).toBe(1);
    expect(unknownCard.stderr).not.toBe('');
    const done = await t.ctx.db
      .selectFrom('oneclick_card_removals')
      .select('card_id')
      .where('state', '=', 'done')
      .executeTakeFirstOrThrow();
    const notGivenUp = await run('subscriptions', 'retry-removal', done.card_id);
    expect(notGivenUp).toMatchObject({ exitCode: 1 });
    expect(notGivenUp.stderr).toContain('is done, not given_up');
    expect(await auditRows(done.card_id)).toEqual([]);

    const retried = await run('subscriptions', 'retry-removal', card, '--json');
    expect(retried.exitCode, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toEqual({ card_id: card, state: 'due' });
    expect(await auditRows(card)).toEqual([
      { chain: shop.id, action: 'cobro subscriptions retry-removal', target: card },
    ]);
    const due = JSON.parse(
      (await run('subscriptions', 'removals', '--status', 'due', '--json')).stdout,
    );
    expect(due.removals.map((r: { card_id: string }) => r.card_id)).toContain(card);
    await drainDueWork(t.ctx);
    expect(sim.users.has(sub.tbkUser)).toBe(false);
    expect(deletesOf(sub.tbkUser)).toBe(subscriptionLimits.cardRemovalTriesMax + 1);
    expect(await removalOf(sub.id)).toMatchObject({ state: 'done', last_error: null });
  });

  it('a retried removal Transbank fails again is given up again after that one try', async () => {
    const sub = await enrolled(await newClient());
    const { id: card } = await t.ctx.db
      .selectFrom('su_cards')
      .select('id')
      .where('subscription_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    refuseDeletes(subscriptionLimits.cardRemovalTriesMax + 1);
    await endSubscription(sub.id);
    for (let i = 0; i < subscriptionLimits.cardRemovalTriesMax + 1; i++) {
      await drainDueWork(t.ctx);
      t.clock.advanceMs(subscriptionLimits.cardRemovalRetryMsMax);
    }
    expect((await run('subscriptions', 'retry-removal', card)).stdout).toContain('is due');
    await drainDueWork(t.ctx);
    expect(deletesOf(sub.tbkUser)).toBe(subscriptionLimits.cardRemovalTriesMax + 1);
    expect(await removalOf(sub.id)).toMatchObject({
      state: 'given_up',
      tries: subscriptionLimits.cardRemovalTriesMax + 1,
    });
    expect(sim.users.has(sub.tbkUser)).toBe(true);
  });
});

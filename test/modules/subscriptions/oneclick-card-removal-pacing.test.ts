// The pace of Oneclick inscription deletes (decision 1065): a backlog of removals (migration 0830's backfill of the
// cards of subscriptions ended before the upgrade, or many subscriptions ending at once) is sent to Transbank at most
// `cardRemovalsPerMinuteMax` a minute per process, a beat of the due-work worker at a time; Transbank answering busy
// (429, 5xx) is retried with the backoff and does not spend the tries that give a removal up. Through the app's
// routes and due work, the real `transbank-sdk` talking to the local simulator, on the injected clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { OneclickSimulator } from '../../support/oneclick-simulator.ts';
import {
  oneclickEnrolled,
  startOneclickShop,
  oneclickVisa as visa,
} from '../../support/oneclick-shop.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { limits, subscriptionLimits } from '../../../src/limits/index.ts';
import { minuteMs } from '../../../src/limits/units.ts';
import { createPlan, createSuClient } from './helpers.ts';

const { cardRemovalsPerBeatMax } = subscriptionLimits;

let t: TestApp;
let sim: OneclickSimulator;
let shop: TestAccount;
let plan: string;
beforeAll(async () => {
  ({ t, sim, shop } = await startOneclickShop('Club Pausado', 'cf'));
  plan = await createPlan(t, shop, { name: 'Plan pausado' });
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const newClient = () =>
  createSuClient(t, shop, { email: `p${Math.random().toString(16).slice(2)}@example.com` });

async function enrolled(): Promise<{ id: string; tbkUser: string }> {
  const client = await newClient();
  const { id, token } = await oneclickEnrolled(t, sim, shop, { plan, client, card: visa });
  return { id, tbkUser: sim.inscriptions.get(token)!.tbkUser! };
}

async function endSubscription(id: string) {
  const res = await t.call(shop, { method: 'DELETE', url: `/api/sususcription/${id}`, sign: true });
  expect(res.json()).toEqual({ id, status: 'success' });
}

const deletes = () => sim.calls.filter((c) => c.op === 'delete').length;
const deletesOf = (tbkUser: string) =>
  sim.calls.filter((c) => c.op === 'delete' && c.key === tbkUser).length;

async function removalOf(subscriptionId: string) {
  return t.ctx.db
    .selectFrom('oneclick_card_removals as r')
    .innerJoin('su_cards as c', 'c.id', 'r.card_id')
    .select(['r.state', 'r.tries', 'r.last_error'])
    .where('c.subscription_id', '=', subscriptionId)
    .executeTakeFirstOrThrow();
}

describe('a backlog of removals', () => {
  it('is sent at the bounded pace: cardRemovalsPerBeatMax a beat of the due-work worker, then the rest', async () => {
    // The bound is a rate: a minute of beats sends cardRemovalsPerMinuteMax at most.
    expect(cardRemovalsPerBeatMax * (minuteMs / limits.dueWorkIntervalMs)).toBe(
      subscriptionLimits.cardRemovalsPerMinuteMax,
    );
    const subs = [];
    for (let i = 0; i < 2 * cardRemovalsPerBeatMax + 1; i++) subs.push(await enrolled());
    for (const sub of subs) await endSubscription(sub.id);
    const sentPerBeat: number[] = [];
    for (let beat = 0; beat < 4; beat++) {
      const before = deletes();
      await drainDueWork(t.ctx); // the due-work worker's step: one beat
      sentPerBeat.push(deletes() - before);
      t.clock.advanceMs(limits.dueWorkIntervalMs);
    }
    expect(sentPerBeat).toEqual([cardRemovalsPerBeatMax, cardRemovalsPerBeatMax, 1, 0]);
    for (const sub of subs) {
      expect(sim.users.has(sub.tbkUser)).toBe(false);
      expect(await removalOf(sub.id)).toMatchObject({ state: 'done', tries: 1 });
    }
  });
});

describe('Transbank answering busy', () => {
  it.each([429, 503])(
    'a delete answered %i for longer than the tries is retried with the backoff, and not given up',
    async (status) => {
      const sub = await enrolled();
      const busy = subscriptionLimits.cardRemovalTriesMax + 2;
      sim.deleteFailureStatus = status;
      sim.deleteFailures = busy;
      try {
        await endSubscription(sub.id);
        await drainDueWork(t.ctx);
        expect(await removalOf(sub.id)).toMatchObject({ state: 'due', tries: 1 });
        // The backoff holds after a busy answer: a beat before it sends nothing.
        t.clock.advanceMs(subscriptionLimits.cardRemovalRetryFirstMs - 1);
        await drainDueWork(t.ctx);
        expect(deletesOf(sub.tbkUser)).toBe(1);
        for (let i = 0; i < busy; i++) {
          t.clock.advanceMs(subscriptionLimits.cardRemovalRetryMsMax);
          await drainDueWork(t.ctx);
        }
        expect(sim.deleteFailures).toBe(0);
        expect(sim.users.has(sub.tbkUser)).toBe(false);
        expect(deletesOf(sub.tbkUser)).toBe(busy + 1);
        expect(await removalOf(sub.id)).toMatchObject({
          state: 'done',
          tries: busy + 1,
          last_error: null,
        });
      } finally {
        sim.deleteFailures = 0;
        sim.deleteFailureStatus = 500;
      }
    },
  );

  it('is given up after cardRemovalBusyTriesMax tries in all, and never sent again', async () => {
    const sub = await enrolled();
    sim.deleteFailureStatus = 429;
    sim.deleteFailures = subscriptionLimits.cardRemovalBusyTriesMax + 1;
    try {
      await endSubscription(sub.id);
      for (let i = 0; i < subscriptionLimits.cardRemovalBusyTriesMax + 2; i++) {
        await drainDueWork(t.ctx);
        t.clock.advanceMs(subscriptionLimits.cardRemovalRetryMsMax);
      }
      expect(deletesOf(sub.tbkUser)).toBe(subscriptionLimits.cardRemovalBusyTriesMax);
      expect(await removalOf(sub.id)).toMatchObject({
        state: 'given_up',
        tries: subscriptionLimits.cardRemovalBusyTriesMax,
        last_error: expect.stringContaining('429'),
      });
      expect(sim.users.has(sub.tbkUser)).toBe(true);
    } finally {
      sim.deleteFailures = 0;
      sim.deleteFailureStatus = 500;
    }
  });
});

// Decision 1105: busy answers (429, 5xx, no answer at all) and refusals are counted apart, so a removal is given up
// after cardRemovalTriesMax refusals or cardRemovalBusyTriesMax busy tries, whichever comes first.
describe('busy tries and refusals, counted apart', () => {
  /** The next `n` deletes answered `status`, nothing deleted. */
  function answerDeletes(n: number, status: number) {
    sim.deleteFailures = n;
    sim.deleteFailureStatus = status;
  }
  /** One beat once the removal's backoff is over. */
  async function nextTry() {
    t.clock.advanceMs(subscriptionLimits.cardRemovalRetryMsMax);
    await drainDueWork(t.ctx);
  }
  const refusalsOf = async (subscriptionId: string) =>
    (
      await t.ctx.db
        .selectFrom('oneclick_card_removals as r')
        .innerJoin('su_cards as c', 'c.id', 'r.card_id')
        .select(['r.refusals'])
        .where('c.subscription_id', '=', subscriptionId)
        .executeTakeFirstOrThrow()
    ).refusals;

  it('a refusal after cardRemovalTriesMax busy answers spends one refusal try, not the last one', async () => {
    const sub = await enrolled();
    const busy = subscriptionLimits.cardRemovalTriesMax;
    try {
      answerDeletes(busy, 429);
      await endSubscription(sub.id);
      await drainDueWork(t.ctx);
      for (let i = 1; i < busy; i++) await nextTry();
      expect(await removalOf(sub.id)).toMatchObject({ state: 'due', tries: busy });
      answerDeletes(1, 401);
      await nextTry();
      expect(await removalOf(sub.id)).toMatchObject({
        state: 'due',
        tries: busy + 1,
        last_error: expect.stringContaining('401'),
      });
      expect(await refusalsOf(sub.id)).toBe(1);
      await nextTry();
      expect(sim.users.has(sub.tbkUser)).toBe(false);
      expect(await removalOf(sub.id)).toMatchObject({ state: 'done', tries: busy + 2 });
    } finally {
      answerDeletes(0, 500);
    }
  });

  it('is given up at the cardRemovalTriesMax-th refusal, however many busy answers came between', async () => {
    const sub = await enrolled();
    const refusals = subscriptionLimits.cardRemovalTriesMax;
    try {
      await endSubscription(sub.id);
      for (let i = 0; i < refusals; i++) {
        answerDeletes(1, 503);
        await nextTry();
        answerDeletes(1, 401);
        await nextTry();
      }
      expect(await removalOf(sub.id)).toMatchObject({
        state: 'given_up',
        tries: 2 * refusals,
        last_error: expect.stringContaining('401'),
      });
      expect(await refusalsOf(sub.id)).toBe(refusals);
      await nextTry();
      expect(deletesOf(sub.tbkUser)).toBe(2 * refusals);
      expect(sim.users.has(sub.tbkUser)).toBe(true);
    } finally {
      answerDeletes(0, 500);
    }
  });

  it('a delete with no answer (the connection lost after Transbank deleted it) is busy: sent again, its 404 is done', async () => {
    const sub = await enrolled();
    const refusals = subscriptionLimits.cardRemovalTriesMax - 1;
    try {
      answerDeletes(refusals, 401);
      await endSubscription(sub.id);
      await drainDueWork(t.ctx);
      for (let i = 1; i < refusals; i++) await nextTry();
      expect(await removalOf(sub.id)).toMatchObject({ state: 'due', tries: refusals });
      sim.deleteFault = 'reset';
      await nextTry();
      // Deleted at Transbank, the answer lost: not a refusal, so not the last refusal try.
      expect(sim.users.has(sub.tbkUser)).toBe(false);
      expect(await removalOf(sub.id)).toMatchObject({ state: 'due', tries: refusals + 1 });
      expect(await refusalsOf(sub.id)).toBe(refusals);
      // Sent again: Transbank answers 404 for the inscription it already deleted, read as done (decision 990).
      await nextTry();
      expect(deletesOf(sub.tbkUser)).toBe(refusals + 2);
      expect(await removalOf(sub.id)).toMatchObject({
        state: 'done',
        tries: refusals + 2,
        last_error: null,
      });
    } finally {
      answerDeletes(0, 500);
      sim.deleteFault = 'none';
    }
  });
});

describe('POST /api/suscriptionsdeletecards (decision 1105)', () => {
  it("answers the seed's shape at once and leaves Transbank's delete to the paced due work", async () => {
    const subs = [];
    for (let i = 0; i < cardRemovalsPerBeatMax + 1; i++) subs.push(await enrolled());
    const before = deletes();
    for (const sub of subs) {
      const card = await t.ctx.db
        .selectFrom('su_cards')
        .select('id')
        .where('subscription_id', '=', sub.id)
        .executeTakeFirstOrThrow();
      const res = await t.call(shop, {
        method: 'POST',
        url: '/api/suscriptionsdeletecards',
        sign: true,
        body: { card: card.id },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'Delete', card: card.id });
    }
    // No request sent a delete: a merchant removing cards as fast as its rate limit allows does not bypass the pace.
    expect(deletes()).toBe(before);
    const sentPerBeat: number[] = [];
    for (let beat = 0; beat < 3; beat++) {
      const start = deletes();
      await drainDueWork(t.ctx);
      sentPerBeat.push(deletes() - start);
      t.clock.advanceMs(limits.dueWorkIntervalMs);
    }
    expect(sentPerBeat).toEqual([cardRemovalsPerBeatMax, 1, 0]);
    for (const sub of subs) {
      expect(sim.users.has(sub.tbkUser)).toBe(false);
      expect(await removalOf(sub.id)).toMatchObject({ state: 'done', tries: 1 });
    }
  });
});

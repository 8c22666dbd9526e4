// A Oneclick inscription delete that never reached Transbank (decision 1210): the connection refused, as when
// Transbank's host is down at the TCP level, is busy, not a refusal, so an outage longer than cardRemovalTriesMax
// tries does not give the removal up. Through the app's routes and due work, the real `transbank-sdk` talking to
// the local simulator and, while it is "down", to a port nothing listens on; on the injected clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { OneclickSimulator } from '../../support/oneclick-simulator.ts';
import {
  oneclickEnrolled,
  setOneclickProcessor,
  startOneclickShop,
  oneclickVisa as visa,
} from '../../support/oneclick-shop.ts';
import { freePort } from '../../support/net.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { drainDueWork } from '../../../src/platform/work/due-work.ts';
import { subscriptionLimits } from '../../../src/limits/index.ts';
import { createPlan, createSuClient } from './helpers.ts';

let t: TestApp;
let sim: OneclickSimulator;
let shop: TestAccount;
let plan: string;
beforeAll(async () => {
  ({ t, sim, shop } = await startOneclickShop('Club Caido', 'cd'));
  plan = await createPlan(t, shop, { name: 'Plan caido' });
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/** The account's Oneclick keys pointed at `environmentUrl` (`cobro accounts set-processor`). */
async function pointKeysAt(environmentUrl: string) {
  const set = await dispatch(
    [
      'accounts',
      'set-processor',
      shop.id,
      '--oneclick-commerce-code',
      sim.commerceCode,
      '--oneclick-child-commerce-code',
      sim.childCommerceCode,
      '--oneclick-api-key',
      sim.apiKey,
      '--environment',
      environmentUrl,
    ],
    t.ctx,
  );
  expect(set.exitCode, set.stderr).toBe(0);
}

async function removalOf(subscriptionId: string) {
  return t.ctx.db
    .selectFrom('oneclick_card_removals as r')
    .innerJoin('su_cards as c', 'c.id', 'r.card_id')
    .select(['r.state', 'r.tries', 'r.refusals', 'r.last_error'])
    .where('c.subscription_id', '=', subscriptionId)
    .executeTakeFirstOrThrow();
}

/** One beat once the removal's backoff is over. */
async function nextTry() {
  t.clock.advanceMs(subscriptionLimits.cardRemovalRetryMsMax);
  await drainDueWork(t.ctx);
}

describe('a delete that never reached Transbank', () => {
  it('(connection refused, longer than cardRemovalTriesMax tries) is busy: sent again once Transbank is back', async () => {
    const client = await createSuClient(t, shop, { email: 'caido@example.com' });
    const { id, token } = await oneclickEnrolled(t, sim, shop, { plan, client, card: visa });
    const tbkUser = sim.inscriptions.get(token)!.tbkUser!;
    // Transbank's host down: nothing listens on the port any more.
    await pointKeysAt(`http://127.0.0.1:${await freePort()}`);
    try {
      const res = await t.call(shop, {
        method: 'DELETE',
        url: `/api/sususcription/${id}`,
        sign: true,
      });
      expect(res.json()).toEqual({ id, status: 'success' });
      const unanswered = subscriptionLimits.cardRemovalTriesMax + 1;
      await drainDueWork(t.ctx);
      for (let i = 1; i < unanswered; i++) await nextTry();
      expect(await removalOf(id)).toMatchObject({
        state: 'due',
        tries: unanswered,
        refusals: 0,
        last_error: expect.stringContaining('ECONNREFUSED'),
      });
      expect(sim.users.has(tbkUser)).toBe(true);
    } finally {
      const back = await setOneclickProcessor(t, sim, shop.id);
      expect(back.exitCode, back.stderr).toBe(0);
    }
    await nextTry();
    expect(sim.users.has(tbkUser)).toBe(false);
    expect(await removalOf(id)).toMatchObject({ state: 'done', refusals: 0, last_error: null });
  });

  it('a refusal Transbank answers (401) is still a refusal beside the unanswered tries', async () => {
    const client = await createSuClient(t, shop, { email: 'rechazo@example.com' });
    const { id, token } = await oneclickEnrolled(t, sim, shop, { plan, client, card: visa });
    const tbkUser = sim.inscriptions.get(token)!.tbkUser!;
    await pointKeysAt(`http://127.0.0.1:${await freePort()}`);
    try {
      await t.call(shop, { method: 'DELETE', url: `/api/sususcription/${id}`, sign: true });
      await drainDueWork(t.ctx);
    } finally {
      const back = await setOneclickProcessor(t, sim, shop.id);
      expect(back.exitCode, back.stderr).toBe(0);
    }
    sim.deleteFailures = 1;
    sim.deleteFailureStatus = 401;
    try {
      await nextTry();
    } finally {
      sim.deleteFailures = 0;
      sim.deleteFailureStatus = 500;
    }
    expect(await removalOf(id)).toMatchObject({
      state: 'due',
      tries: 2,
      refusals: 1,
      last_error: expect.stringContaining('401'),
    });
    await nextTry();
    expect(sim.users.has(tbkUser)).toBe(false);
    expect(await removalOf(id)).toMatchObject({ state: 'done', tries: 3, refusals: 1 });
  });
});

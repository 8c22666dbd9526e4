// Subscriptions (reference §7.6-7.10, §8.3): create one (status `register`, with the hosted enrolment link),
// read it, list them (v1 and v3 shapes) and delete it.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AppContext } from '../../platform/context.ts';
import { readInChunks } from '../../platform/db/chunked-read.ts';
import { notFound, ruleFailure, validationError } from '../../platform/errors/errors.ts';
import { oneclickSummary } from '../../platform/processors/oneclick-settings.ts';
import { newId } from '../../platform/ids/ids.ts';
import { limits, subscriptionLimits } from '../../limits/index.ts';
import { dayRange } from './date-filter.ts';
import { findClient, findPlan } from './repository.ts';
import { readParts, type SubscriptionPartsWithCycles } from './subscription-parts.ts';
import type { SubscriptionCreate, SubscriptionListQueryInput } from './subscription-schemas.ts';
import {
  findSubscription,
  listSubscriptions,
  lockSubscription,
} from './subscription-repository.ts';
import { isFinal, subscriptionStatuses, type SubscriptionStatus } from './states.ts';
import { logCreation, moveSubscription } from './subscription-transition.ts';
import { subscriptionV1View, subscriptionV3View, subscriptionView } from './subscription-views.ts';
import { createEnrolment } from './enrolment-link.ts';

export async function createSubscription(
  ctx: AppContext,
  accountId: string,
  body: SubscriptionCreate,
) {
  const plan = await findPlan(ctx.db, accountId, body.plan);
  const client = await findClient(ctx.db, accountId, body.client);
  const problems: Record<string, string> = {};
  if (plan === undefined) problems.plan = 'not found';
  if (client === undefined || body.client.includes('@')) problems.client = 'not found';
  if (plan !== undefined && plan.type === 'variable' && body.amount === undefined)
    problems.amount = 'is empty';
  if (plan !== undefined && plan.type !== 'variable' && body.amount !== undefined)
    problems.amount = `not allowed on a ${plan.type} plan`;
  if (Object.keys(problems).length > 0 || plan === undefined || client === undefined)
    throw validationError(problems);
  // Production enrols and charges cards through the account's Oneclick Mall only (issue 33).
  if (ctx.config.mode === 'production' && (await oneclickSummary(ctx.db, accountId)) === null)
    return ruleFailure('stored_cards_not_configured');
  const now = await ctx.accountClock.now(accountId, ctx.db);
  const id = newId('su', 20);
  await ctx.db
    .insertInto('su_subscriptions')
    .values({
      id,
      account_id: accountId,
      client_id: client.id,
      plan_id: plan.id,
      status: 'register',
      amount_minor: body.amount ?? null,
      coupon: body.coupon ?? null,
      created_at: now,
      activated_at: null,
      ended_at: null,
      next_cycle_at: null,
    })
    .execute();
  await logCreation(ctx.db, id, now);
  const url = await createEnrolment(ctx, {
    accountId,
    subscriptionId: id,
    planType: plan.type,
    at: now,
  });
  return { status: 'register' as const, id, url };
}

export async function getSubscription(ctx: AppContext, accountId: string, id: string) {
  const row = await findSubscription(ctx.db, accountId, id);
  if (row === undefined) throw notFound('subscription');
  const [parts] = await readParts(ctx.db, accountId, [row], false);
  return subscriptionView(ctx, parts!);
}

/** Ends a subscription for good (`delete` by the API, `cancel` by the operator): no cycle is charged after it. */
export async function endSubscription(
  ctx: AppContext,
  accountId: string,
  id: string,
  to: Extract<SubscriptionStatus, 'delete' | 'cancel'>,
) {
  const row = await lockSubscription(ctx.db, id);
  if (row === undefined || row.account_id !== accountId) throw notFound('subscription');
  if (isFinal(row.status)) throw validationError({ id: `already ${row.status}` });
  const now = await ctx.accountClock.now(accountId, ctx.db);
  // Its cycles waiting for a charge or a retry end with it (moveSubscription, decision 660).
  await moveSubscription(ctx.db, row, to, now);
  return { id, status: 'success' as const };
}

/**
 * A list page (up to 4000 subscriptions) as `view` shows each: the rows in chunks (chunked-read.ts), then each
 * chunk's parts in six statements and its views, yielding between statements so that on PGlite other requests run
 * between them. About seven statements per 500 subscriptions, where each subscription cost six of its own.
 */
async function listViews<View>(
  ctx: AppContext,
  accountId: string,
  query: SubscriptionListQueryInput,
  view: (ctx: AppContext, parts: SubscriptionPartsWithCycles) => View,
) {
  const { from, before } = await dayRange(ctx, accountId, query.date_init, query.date_end);
  const statuses = subscriptionStatuses.filter((s) => query[s] === true);
  const size = query.per_page ?? subscriptionLimits.customersPerPageMax;
  const offset = ((query.page ?? 1) - 1) * size;
  const rows = await readInChunks(
    size,
    (limit) =>
      listSubscriptions(ctx.db, accountId, { from, before, statuses, offset, size: limit }),
    (last, limit) =>
      listSubscriptions(ctx.db, accountId, {
        from,
        before,
        statuses,
        offset: 0,
        size: limit,
        afterSeq: last.seq,
      }),
  );
  const chunkRowsMax = limits.dbReadChunkRowsMax;
  const out: View[] = [];
  for (let start = 0; start < rows.length; start += chunkRowsMax) {
    await nextTurn();
    for (const parts of await readParts(
      ctx.db,
      accountId,
      rows.slice(start, start + chunkRowsMax),
      true,
      nextTurn,
    ))
      out.push(view(ctx, parts));
  }
  return out;
}

/** reference §7.7: `[{"subscriptions":[...]}]`. */
export async function listSubscriptionsV1(
  ctx: AppContext,
  accountId: string,
  query: SubscriptionListQueryInput,
) {
  return [{ subscriptions: await listViews(ctx, accountId, query, subscriptionV1View) }];
}

/** reference §7.8: `[{"subscriptions":[...]}]` with `estatus` and `paid[]`. */
export async function listSubscriptionsV3(
  ctx: AppContext,
  accountId: string,
  query: SubscriptionListQueryInput,
) {
  return [{ subscriptions: await listViews(ctx, accountId, query, subscriptionV3View) }];
}

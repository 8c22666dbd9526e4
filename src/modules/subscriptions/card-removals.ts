// A card's Oneclick inscription deleted at Transbank once no subscription of Cobro's can charge it (decision 990):
//   mark:   in the transaction that ends the subscription (moveSubscription), removes the card (deleteCard) or
//           deletes the client, a `due` row per Oneclick card (migration 0830);
//   claim:  one due removal under FOR UPDATE SKIP LOCKED; a card whose inscription another live subscription of the
//           same client still charges is `kept`; otherwise the try is counted and the removal's next try set, in the
//           claim's commit, so a worker that dies at Transbank leaves it due again after the backoff;
//   send:   outside any transaction, Transbank's delete; a success or a 404 (already gone) is `done`, a failure
//           waits for the next try, and the last allowed failure is `given_up` and logged for the operator; Transbank
//           busy (429, 5xx, or no answer, the request never reached included) is allowed more tries than a refusal,
//           and the two are counted apart: `refusals`, and `tries - refusals` busy (decisions 1065, 1105, 1210;
//           removal-answers.ts reads the failure).
//   pace:   the due-work worker claims at most cardRemovalsPerBeatMax a beat (decision 1065).
// Sandbox cards are never marked (their tokens are not Oneclick's), so nothing is sent there.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx, Timestamp, Tx } from '../../platform/db/types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { subscriptionLimits, transactionLimits } from '../../limits/index.ts';
import { liveStatuses } from './states.ts';
import { removalFailureKind } from './removal-answers.ts';

// A try still at Transbank (up to the acquirer's timeout) is never claimed again by another worker.
assert.ok(
  transactionLimits.acquirer.requestTimeoutMs < subscriptionLimits.cardRemovalRetryFirstMs &&
    subscriptionLimits.cardRemovalRetryFirstMs <= subscriptionLimits.cardRemovalRetryMsMax,
  'a card removal is retried only after its call has timed out',
);

type CardRemovalState = 'due' | 'done' | 'kept' | 'given_up';

interface OneclickCardRemovalTable {
  card_id: string;
  account_id: string;
  state: CardRemovalState;
  /** Claims made: the backoff's exponent and the fence of the try that holds the row (decision 990). */
  tries: number;
  /** Tries Transbank refused (decision 1105); the other `tries - refusals` were busy or unanswered. */
  refusals: number;
  /** The next try; null is due at once. */
  due_at: Timestamp | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    oneclick_card_removals: OneclickCardRemovalTable;
  }
}

const oneclickTokenPattern = 'oneclick:%';

/**
 * Marks cards for removal at Transbank, state `due`, in the caller's transaction: a card already marked keeps its row.
 * Only Oneclick cards (`oneclick:` tokens) are marked.
 */
async function markCards(
  db: DbOrTx,
  which: { readonly subscriptionId: string } | { readonly cardId: string },
  at: Date,
): Promise<void> {
  await db
    .insertInto('oneclick_card_removals')
    .columns(['card_id', 'account_id', 'state', 'created_at', 'updated_at'])
    .expression((eb) => {
      const cards = eb
        .selectFrom('su_cards')
        .select([
          'id',
          'account_id',
          sql.lit('due').as('state'),
          sql<Date>`${at}::timestamptz`.as('created_at'),
          sql<Date>`${at}::timestamptz`.as('updated_at'),
        ]);
      const picked =
        'cardId' in which
          ? cards.where('id', '=', which.cardId)
          : cards
              .where('subscription_id', '=', which.subscriptionId)
              .where('deleted_at', 'is', null);
      return picked.where('processor_token', 'like', oneclickTokenPattern);
    })
    .onConflict((oc) => oc.column('card_id').doNothing())
    .execute();
}

/** Marks for removal the live Oneclick cards of a subscription that ends, in the caller's transaction. */
export async function markSubscriptionCards(
  db: DbOrTx,
  subscriptionId: string,
  at: Date,
): Promise<void> {
  await markCards(db, { subscriptionId }, at);
}

/** Marks one removed card for removal at Transbank, in deleteCard's transaction. */
export async function markCard(db: DbOrTx, cardId: string, at: Date): Promise<void> {
  await markCards(db, { cardId }, at);
}

interface StoredCard {
  readonly username: string;
  readonly tbkUser: string;
}

type Claim =
  | {
      readonly kind: 'claimed';
      readonly cardId: string;
      readonly accountId: string;
      readonly tries: number;
      readonly refusals: number;
      readonly card: StoredCard;
    }
  | { readonly kind: 'kept' };

async function processor() {
  return import('../../platform/processors/oneclick-processor.ts');
}

/** The wait before try `tries + 1`: the first retry after cardRemovalRetryFirstMs, doubling, capped. */
function removalBackoffMs(tries: number): number {
  const doublings = Math.min(Math.max(tries - 1, 0), subscriptionLimits.cardRemovalTriesMax);
  return Math.min(
    subscriptionLimits.cardRemovalRetryFirstMs * 2 ** doublings,
    subscriptionLimits.cardRemovalRetryMsMax,
  );
}

/** Whether another live subscription of the client holds a live card on the same Transbank inscription. */
async function sharedWithLive(
  ctx: AppContext,
  tx: Tx,
  cardId: string,
  clientId: string,
  card: StoredCard,
): Promise<boolean> {
  const { openCardToken } = await processor();
  const others = await tx
    .selectFrom('su_cards as c')
    .innerJoin('su_subscriptions as s', 's.id', 'c.subscription_id')
    .select('c.processor_token')
    .where('c.client_id', '=', clientId)
    .where('c.id', '!=', cardId)
    .where('c.deleted_at', 'is', null)
    .where('c.processor_token', 'like', oneclickTokenPattern)
    .where('s.status', 'in', liveStatuses)
    .limit(subscriptionLimits.cardRemovalSharedScanMax)
    .execute();
  return others.some((o) => {
    const other = openCardToken(ctx, o.processor_token);
    return other?.tbkUser === card.tbkUser && other.username === card.username;
  });
}

async function claimRemoval(
  ctx: AppContext,
  scope: { readonly accountId?: string },
): Promise<Claim | undefined> {
  return inTransaction(ctx.db, async (tx) => {
    const now = ctx.clock.now();
    let q = tx
      .selectFrom('oneclick_card_removals')
      .select(['card_id', 'account_id', 'tries', 'refusals'])
      .where('state', '=', 'due')
      .where((eb) => eb.or([eb('due_at', 'is', null), eb('due_at', '<=', now)]));
    if (scope.accountId !== undefined) q = q.where('account_id', '=', scope.accountId);
    const row = await q.orderBy('created_at').limit(1).forUpdate().skipLocked().executeTakeFirst();
    if (row === undefined) return undefined;
    const stored = await tx
      .selectFrom('su_cards')
      .select(['client_id', 'processor_token'])
      .where('id', '=', row.card_id)
      .executeTakeFirstOrThrow();
    const card = (await processor()).openCardToken(ctx, stored.processor_token);
    if (card === null) throw new Error(`card ${row.card_id} marked for removal is not Oneclick's`);
    if (await sharedWithLive(ctx, tx, row.card_id, stored.client_id, card)) {
      await tx
        .updateTable('oneclick_card_removals')
        .set({ state: 'kept', due_at: null, updated_at: now })
        .where('card_id', '=', row.card_id)
        .execute();
      ctx.logger.info(
        { card: row.card_id },
        'Oneclick inscription kept: another live subscription charges it',
      );
      return { kind: 'kept' } as const;
    }
    const tries = row.tries + 1;
    await tx
      .updateTable('oneclick_card_removals')
      .set({
        tries,
        due_at: new Date(now.getTime() + removalBackoffMs(tries)),
        updated_at: now,
      })
      .where('card_id', '=', row.card_id)
      .execute();
    return {
      kind: 'claimed',
      cardId: row.card_id,
      accountId: row.account_id,
      tries,
      refusals: row.refusals,
      card: { username: card.username, tbkUser: card.tbkUser },
    } as const;
  });
}

/** Transbank's delete for a claimed removal, outside any transaction, and its outcome recorded. */
async function sendRemoval(
  ctx: AppContext,
  claim: Extract<Claim, { kind: 'claimed' }>,
): Promise<void> {
  let failure: string | null = null;
  let busy = false;
  const oneclick = await (await processor()).oneclickForAccount(ctx, claim.accountId);
  if (oneclick === null) failure = 'the account has no Oneclick keys';
  else {
    try {
      await oneclick.mall.remove(claim.card.tbkUser, claim.card.username);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const kind = removalFailureKind(error);
      // A 404 is an inscription already gone (an earlier try whose answer was lost): the removal is done.
      if (kind !== 'gone') failure = message.slice(0, subscriptionLimits.cardRemovalErrorLengthMax);
      // Transbank busy, silent or never reached (decisions 1065, 1105, 1210) says nothing of the removal: retried
      // with the backoff, without spending one of the tries a refusal is given.
      busy = kind === 'busy';
    }
  }
  const refused = failure !== null && !busy;
  const refusals = claim.refusals + (refused ? 1 : 0);
  const givenUp =
    failure !== null &&
    (busy
      ? claim.tries - refusals >= subscriptionLimits.cardRemovalBusyTriesMax
      : refusals >= subscriptionLimits.cardRemovalTriesMax);
  const state: CardRemovalState = failure === null ? 'done' : givenUp ? 'given_up' : 'due';
  await ctx.db
    .updateTable('oneclick_card_removals')
    .set({
      state,
      refusals,
      last_error: failure,
      ...(state === 'due' ? {} : { due_at: null }),
      updated_at: ctx.clock.now(),
    })
    .where('card_id', '=', claim.cardId)
    // A later try (this one's worker was thought dead) owns the row now.
    .where('tries', '=', claim.tries)
    .where('state', '=', 'due')
    .execute();
  const log = {
    card: claim.cardId,
    account: claim.accountId,
    tries: claim.tries,
    refusals,
    busy,
    failure,
  };
  if (givenUp) ctx.logger.error(log, 'Oneclick inscription delete given up: left at Transbank');
  else if (failure !== null)
    ctx.logger.warn(log, 'Oneclick inscription delete failed; retried later');
}

/** Due work: sends the due card removals, in production only. */
export async function runCardRemovals(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  if (ctx.config.mode !== 'production') return 0;
  const limit = Math.min(scope.limit, subscriptionLimits.cardRemovalBatchMax);
  let processed = 0;
  while (processed < limit) {
    const claim = await claimRemoval(
      ctx,
      scope.accountId === undefined ? {} : { accountId: scope.accountId },
    );
    if (claim === undefined) break;
    if (claim.kind === 'claimed') await sendRemoval(ctx, claim);
    processed++;
  }
  return processed;
}

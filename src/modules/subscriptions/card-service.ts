// Cards of a subscription (reference §7.12, §7.13): a new enrolment link to add or replace a card, and removing one.
import type { AppContext } from '../../platform/context.ts';
import { ApiError, notFound } from '../../platform/errors/errors.ts';
import { findPlan } from './repository.ts';
import { findSubscription } from './subscription-repository.ts';
import { createEnrolment } from './enrolment-link.ts';
import { isFinal } from './states.ts';
import { removeOneclickCard } from './oneclick-enrolment.ts';

/** POST /api/suinscriptionscards: a new link to the hosted page; the card it enrols is the one charged from then on. */
export async function newCardLink(ctx: AppContext, accountId: string, subscriptionId: string) {
  const sub = await findSubscription(ctx.db, accountId, subscriptionId);
  if (sub === undefined) throw notFound('subscription');
  if (isFinal(sub.status))
    throw new ApiError('validation_failed', `suscription:is ${sub.status}`, {
      errors: { suscription: `is ${sub.status}` },
    });
  const plan = await findPlan(ctx.db, accountId, sub.plan_id);
  if (plan === undefined) throw new Error(`subscription ${sub.id} names a missing plan`);
  const url = await createEnrolment(ctx, {
    accountId,
    subscriptionId: sub.id,
    planType: plan.type,
    at: await ctx.accountClock.now(accountId, ctx.db),
  });
  return { status: 'success' as const, id: sub.id, url };
}

/** POST /api/suscriptionsdeletecards: the reference's own 400 shape for a card that is not the merchant's. */
export async function deleteCard(ctx: AppContext, accountId: string, cardId: string | undefined) {
  const card =
    cardId === undefined
      ? undefined
      : await ctx.db
          .selectFrom('su_cards')
          .select('id')
          .where('account_id', '=', accountId)
          .where('id', '=', cardId)
          .where('deleted_at', 'is', null)
          .forUpdate()
          .executeTakeFirst();
  if (card === undefined) throw new ApiError('card_invalid', 'is not valid');
  await ctx.db
    .updateTable('su_cards')
    .set({ deleted_at: await ctx.accountClock.now(accountId, ctx.db) })
    .where('id', '=', card.id)
    .execute();
  return { status: 'Delete' as const, card: card.id };
}

/**
 * After deleteCard's commit, never inside it (STYLE rule 10, decision 960): the card's Oneclick inscription deleted
 * at Transbank in production. A retry after a crash asks again; Transbank's 404 then is only logged.
 */
export async function removeDeletedCard(
  ctx: AppContext,
  accountId: string,
  deleted: { readonly status: 'Delete'; readonly card: string },
) {
  if (ctx.config.mode !== 'production') return deleted;
  const card = await ctx.db
    .selectFrom('su_cards')
    .select('processor_token')
    .where('account_id', '=', accountId)
    .where('id', '=', deleted.card)
    .executeTakeFirst();
  if (card !== undefined) await removeOneclickCard(ctx, accountId, card.processor_token);
  return deleted;
}

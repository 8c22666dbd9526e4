// POST /api/sutransaction (reference §7.11, §8.4): charges a subscription's stored card once, synchronously, and
// answers `{status, order, amount, transaction_id, verification_key}`; a declined card is HTTP 200 `failed`.
// The command records the charge and its pending payment; the processor is called after that commit
// (stored-charge.ts), so a repeated `order` (or Idempotency-Key) finds the first charge and never charges twice.
import type { AppContext } from '../../platform/context.ts';
import { ruleFailure, validationError, type RuleFailure } from '../../platform/errors/errors.ts';
import { newId } from '../../platform/ids/ids.ts';
import type { TransactionRow } from '../transactions/repository.ts';
import { findPlan } from './repository.ts';
import {
  liveCard,
  liveCards,
  lockSubscription,
  type SubscriptionRow,
} from './subscription-repository.ts';
import { isFinal } from './states.ts';
import type { ExtensionColumns } from '../transactions/extension.ts';
import { openCharge } from './charge-open.ts';
import { settleCharge } from './stored-charge.ts';
import { prepareChargeMarketplace } from './consumption-marketplace.ts';
import type { ConsumptionChargeInput } from './consumption-schemas.ts';

export type ConsumptionCommitted =
  | { readonly transactionId: string; readonly order: string }
  | RuleFailure;

export async function openConsumptionCharge(
  ctx: AppContext,
  accountId: string,
  body: ConsumptionChargeInput,
): Promise<ConsumptionCommitted> {
  const sub = await lockSubscription(ctx.db, body.suscription);
  if (sub === undefined || sub.account_id !== accountId)
    throw validationError({ suscription: 'not found' });
  // The newest card, or the one named: any of the subscription's live cards, as deleteCard finds it.
  const card =
    body.card === undefined
      ? (await liveCards(ctx.db, sub.id))[0]
      : await liveCard(ctx.db, sub.id, body.card);
  if (body.card !== undefined && card === undefined) throw validationError({ card: 'not found' });
  const at = await ctx.accountClock.now(accountId, ctx.db);
  const marketplace =
    body.marketplace === undefined
      ? null
      : await prepareChargeMarketplace(ctx, accountId, body.marketplace, at);
  // Without an order the charge gets its own (an Idempotency-Key still makes a retry safe).
  const order = body.order ?? newId('ord', 17);
  const existing =
    body.order === undefined ? undefined : await consumptionByOrder(ctx, accountId, body.order);
  if (existing !== undefined) return replayOf(existing, sub.id, body, marketplace?.token ?? null);
  if (sub.status !== 'active')
    return ruleFailure('subscription_not_chargeable', {
      subscriptionId: sub.id,
      reason: `it is ${sub.status}`,
    });
  if (card === undefined)
    return ruleFailure('subscription_not_chargeable', {
      subscriptionId: sub.id,
      reason: 'it has no card',
    });
  if (marketplace?.ok === false) return marketplace.failure;
  const attached = marketplace === null ? null : await marketplace.attach(ctx);
  if (attached?.ok === false) return attached.failure;
  const transactionId = await openOnCard(ctx, sub, body, {
    cardId: card.id,
    order,
    at,
    extension: attached?.columns ?? null,
  });
  // The subscription's row lock orders charges of one subscription; another subscription's charge with the same
  // order meets this one on the unique index and is refused as a duplicate.
  if (transactionId === null) return ruleFailure('duplicate_order', { order });
  return { transactionId, order };
}

/** The consumption charge already made with this `order`, if any. */
async function consumptionByOrder(ctx: AppContext, accountId: string, order: string) {
  // The charge's membership, by the token a request names it with (the row keeps the membership's id).
  return ctx.db
    .selectFrom('su_charges as c')
    .innerJoin('transactions as t', 't.id', 'c.transaction_id')
    .leftJoin('ma_memberships as m', (j) =>
      j.on('t.extension', '=', 'marketplace').onRef('m.id', '=', 't.extension_ref'),
    )
    .select(['c.transaction_id', 'c.subscription_id', 't.amount_minor', 'm.token as marketplace'])
    .where('c.account_id', '=', accountId)
    .where('c.kind', '=', 'consumption')
    .where('c.order_ref', '=', order)
    .executeTakeFirst();
}

/** A repeated `order`: the first charge when it is the same charge, else a duplicate. */
function replayOf(
  existing: NonNullable<Awaited<ReturnType<typeof consumptionByOrder>>>,
  subscriptionId: string,
  body: ConsumptionChargeInput,
  marketplaceToken: string | null,
): ConsumptionCommitted {
  const sameMarketplace = existing.marketplace === marketplaceToken;
  if (
    existing.subscription_id !== subscriptionId ||
    BigInt(existing.amount_minor) !== BigInt(body.amount) ||
    !sameMarketplace
  )
    return ruleFailure('duplicate_order', { order: body.order! });
  return { transactionId: existing.transaction_id, order: body.order! };
}

/** The charge and its pending payment on the subscription's card, described by the body or the plan's name. */
async function openOnCard(
  ctx: AppContext,
  sub: SubscriptionRow,
  body: ConsumptionChargeInput,
  charge: { cardId: string; order: string; at: Date; extension: ExtensionColumns | null },
): Promise<string | null> {
  const plan = await findPlan(ctx.db, sub.account_id, sub.plan_id);
  const client = await ctx.db
    .selectFrom('su_clients')
    .select('email')
    .where('id', '=', sub.client_id)
    .executeTakeFirstOrThrow();
  return openCharge(ctx.db, {
    accountId: sub.account_id,
    subscriptionId: sub.id,
    cardId: charge.cardId,
    kind: 'consumption',
    cycleNumber: null,
    order: charge.order,
    description: body.description ?? plan?.name ?? 'Cobro de suscripción',
    email: client.email,
    amountMinor: BigInt(body.amount),
    at: charge.at,
    extension: charge.extension,
  });
}

function answerOf(row: TransactionRow, order: string) {
  const status = row.status === 'rejected' ? 'failed' : row.status;
  return {
    status,
    order,
    amount: row.amount_minor.toString(),
    transaction_id: row.number.toString(),
    verification_key: row.verification_key,
  };
}

/**
 * After the commit: charge (or find the charge done) and answer it. Safe to run again. A charge no processor saw
 * whose subscription ended since it opened (a DELETE between the two commits) is declined unsent (decision 760).
 */
export async function finishConsumptionCharge(ctx: AppContext, committed: ConsumptionCommitted) {
  if ('status' in committed) return committed;
  let ended = false;
  const row = await settleCharge(ctx, committed.transactionId, {
    // The subscription by the charge's row, not the committed value: a value an Idempotency-Key kept before this
    // rule may be the one replayed. Its lock comes before the payment's (decision 060), as the billing run takes it.
    lockFirst: async (tx) => {
      const charge = await tx
        .selectFrom('su_charges')
        .select('subscription_id')
        .where('transaction_id', '=', committed.transactionId)
        .executeTakeFirstOrThrow();
      const sub = await lockSubscription(tx, charge.subscription_id);
      ended = sub === undefined || isFinal(sub.status);
    },
    stillWanted: () => !ended,
  });
  return answerOf(row, committed.order);
}

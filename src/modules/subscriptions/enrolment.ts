// Card enrolment (reference §7.0 steps 3-6, §7.12): the payer types a card on the hosted page; a CLP 50 charge
// checks it and is refunded at once; the card is kept as the processor's token with its brand and last four
// digits (never its number or security code); the subscription becomes `active` and the plan's
// url_notify_suscription gets `{id, status}`. Three steps, so no lock is held while the processor answers:
//   1. claim the enrolment link with an attempt key and a lease (a second tab finds the claim or the result);
//   2. charge the card and refund the charge through the processor, with keys derived from the attempt;
//   3. lock the link again, check the claim is ours, and record card, ledger journals, status and callback in
//      one commit.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { newId } from '../../platform/ids/ids.ts';
import type { CardDetails, ChargeOutcome } from '../../platform/processors/processor.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import {
  lockSubscription,
  subscriptionPlan,
  type SubscriptionRow,
} from './subscription-repository.ts';
import { activate, postVerification } from './enrolment-effects.ts';
import { billSubscriptionNow } from './billing.ts';
import { collectOverdue } from './overdue.ts';
import { isFinal } from './states.ts';

export type EnrolOutcome =
  | { readonly kind: 'enrolled' }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'closed' }
  | { readonly kind: 'declined'; readonly payerMessage: string };

async function lockEnrolment(tx: Tx, token: string) {
  return tx
    .selectFrom('su_enrolments')
    .selectAll()
    .where('token', '=', token)
    .forUpdate()
    .executeTakeFirst();
}

export async function enrolCard(
  ctx: AppContext,
  token: string,
  card: CardDetails,
): Promise<EnrolOutcome> {
  const attemptKey = newId('sua', 20);
  const claim = await claimEnrolment(ctx, token, attemptKey);
  if (claim.kind !== 'claimed') return claim;
  const outcome = await verifyCard(ctx, token, attemptKey, card);
  if (
    !outcome.approved ||
    outcome.cardToken === null ||
    outcome.cardBrand === null ||
    outcome.cardLast4 === null
  ) {
    await releaseClaim(ctx, token, attemptKey);
    return {
      kind: 'declined',
      payerMessage: outcome.approved ? 'La tarjeta no se pudo registrar.' : outcome.payerMessage,
    };
  }
  const stored = { token: outcome.cardToken, brand: outcome.cardBrand, last4: outcome.cardLast4 };
  const recorded = await recordClaimed(ctx, token, attemptKey, stored);
  if (recorded.subscriptionId !== undefined) await collectNow(ctx, recorded.subscriptionId);
  return recorded.outcome;
}

/** Step 1: the enrolment link claimed with `attemptKey` under a lease, or why not (used, closed, another tab). */
async function claimEnrolment(ctx: AppContext, token: string, attemptKey: string) {
  return inTransaction(ctx.db, async (tx) => {
    const row = await lockEnrolment(tx, token);
    if (row === undefined) throw new Error('enrolment vanished');
    const sub = await tx
      .selectFrom('su_subscriptions')
      .select(['status'])
      .where('id', '=', row.subscription_id)
      .executeTakeFirstOrThrow();
    if (row.used_at !== null) return { kind: 'enrolled' } as const;
    if (isFinal(sub.status)) return { kind: 'closed' } as const;
    // The claim's lease is on the service clock (decision 785): a sandbox clock advance never frees a live one.
    const now = ctx.clock.now();
    if (row.attempt_lease_until !== null && row.attempt_lease_until.getTime() > now.getTime())
      return { kind: 'in_progress' } as const;
    await tx
      .updateTable('su_enrolments')
      .set({
        attempt_key: attemptKey,
        attempt_lease_until: new Date(now.getTime() + subscriptionLimits.enrolmentLeaseMs),
      })
      .where('token', '=', token)
      .execute();
    return { kind: 'claimed' } as const;
  });
}

/** Step 2: the verification charge, refunded at once when approved; the claim is released when either throws. */
async function verifyCard(
  ctx: AppContext,
  token: string,
  attemptKey: string,
  card: CardDetails,
): Promise<ChargeOutcome> {
  const amountMinor = subscriptionLimits.verificationAmountMinor;
  try {
    const outcome = await ctx.processor.charge({
      kind: 'card',
      card,
      installments: 0,
      idempotencyKey: attemptKey,
      amountMinor,
      currency: 'CLP',
      description: 'Verificación de tarjeta',
    });
    if (outcome.approved) {
      const refund = await ctx.processor.refund({
        chargeIdempotencyKey: attemptKey,
        authorizationCode: outcome.authorizationCode,
        idempotencyKey: `${attemptKey}:refund`,
        amountMinor,
        currency: 'CLP',
      });
      if (!refund.approved)
        throw new Error(`verification refund refused: ${refund.gatewayMessage}`);
    }
    return outcome;
  } catch (error) {
    await releaseClaim(ctx, token, attemptKey);
    throw error;
  }
}

/** Step 3: the card, journals, status and callback recorded in one commit, if the claim is still ours. */
async function recordClaimed(
  ctx: AppContext,
  token: string,
  attemptKey: string,
  stored: { token: string; brand: string; last4: string },
): Promise<{ outcome: EnrolOutcome; subscriptionId?: string }> {
  return inTransaction(
    ctx.db,
    async (tx): Promise<{ outcome: EnrolOutcome; subscriptionId?: string }> => {
      const row = await lockEnrolment(tx, token);
      if (row === undefined || row.used_at !== null || row.attempt_key !== attemptKey) {
        ctx.logger.error(
          { enrolment: token, attempt: attemptKey },
          'card enrolment lost its claim',
        );
        return { outcome: { kind: row?.used_at != null ? 'enrolled' : 'in_progress' } };
      }
      // Ended while the card was being checked (decision 1060): no card is kept for it, but the check did go to
      // the processor and back, so the ledger records it.
      const sub = await lockSubscription(tx, row.subscription_id);
      if (sub === undefined || isFinal(sub.status)) {
        await postVerification(ctx, tx, attemptKey, await ctx.accountClock.now(row.account_id, tx));
        await tx
          .updateTable('su_enrolments')
          .set({ attempt_key: null, attempt_lease_until: null })
          .where('token', '=', token)
          .execute();
        return { outcome: { kind: 'closed' } };
      }
      await recordEnrolment(ctx, tx, row, stored, attemptKey);
      return { outcome: { kind: 'enrolled' }, subscriptionId: row.subscription_id };
    },
  );
}

/** What the new card made due (decision 101), charged at once; what fails here the billing worker takes up. */
async function collectNow(ctx: AppContext, subscriptionId: string): Promise<void> {
  try {
    await billSubscriptionNow(ctx, subscriptionId);
  } catch (error) {
    ctx.logger.error(
      { subscription: subscriptionId, err: error },
      "collecting a subscription's overdue cycles failed; the billing worker retries",
    );
  }
}

async function releaseClaim(ctx: AppContext, token: string, attemptKey: string): Promise<void> {
  await ctx.db
    .updateTable('su_enrolments')
    .set({ attempt_key: null, attempt_lease_until: null })
    .where('token', '=', token)
    .where('attempt_key', '=', attemptKey)
    .execute();
}

type EnrolmentRow = NonNullable<Awaited<ReturnType<typeof lockEnrolment>>>;

interface StoredCard {
  readonly token: string;
  readonly brand: string;
  readonly last4: string;
}

/**
 * Records a card the processor registered on its own page (Oneclick Mall, issue 33) for the enrolment link
 * `token`, then collects what the card made due, as `enrolCard` does for a card typed on Cobro's page. `kept` is
 * false when the link was used meanwhile (another tab's inscription) or its subscription ended: the caller deletes
 * the registration it made (decision 960).
 */
export async function enrolStoredCard(
  ctx: AppContext,
  token: string,
  card: StoredCard,
): Promise<{ readonly outcome: EnrolOutcome; readonly kept: boolean }> {
  const recorded = await inTransaction(ctx.db, async (tx) => {
    const row = await lockEnrolment(tx, token);
    if (row === undefined) throw new Error('enrolment vanished');
    if (row.used_at !== null) return { kind: 'enrolled' } as const;
    const sub = await lockSubscription(tx, row.subscription_id);
    if (sub === undefined || isFinal(sub.status)) return { kind: 'closed' } as const;
    await recordEnrolment(ctx, tx, row, card, null);
    return row.subscription_id;
  });
  if (typeof recorded !== 'string') return { outcome: recorded, kept: false };
  await collectNow(ctx, recorded);
  return { outcome: { kind: 'enrolled' }, kept: true };
}

async function recordEnrolment(
  ctx: AppContext,
  tx: Tx,
  enrolment: EnrolmentRow,
  card: StoredCard,
  attemptKey: string | null,
) {
  const sub = await lockSubscription(tx, enrolment.subscription_id);
  if (sub === undefined) throw new Error('enrolment names a missing subscription');
  const now = await ctx.accountClock.now(sub.account_id, tx);
  await storeCard(tx, sub, enrolment, card, now);
  // A card Transbank's own page registered (Oneclick) had no verification charge here (issue 33).
  if (attemptKey !== null) await postVerification(ctx, tx, attemptKey, now);
  const plan = await subscriptionPlan(tx, sub);
  await collectOverdue(ctx, tx, sub, plan, now);
  if (sub.status === 'register') await activate(ctx, tx, sub, plan, now);
}

/** The card kept on the subscription (its token, brand and last four), and the enrolment link used by it. */
async function storeCard(
  tx: Tx,
  sub: SubscriptionRow,
  enrolment: EnrolmentRow,
  card: StoredCard,
  now: Date,
): Promise<void> {
  const cardId = newId('sure', 20);
  await tx
    .insertInto('su_cards')
    .values({
      id: cardId,
      account_id: sub.account_id,
      client_id: sub.client_id,
      subscription_id: sub.id,
      brand: card.brand,
      last4: card.last4,
      processor_token: card.token,
      created_at: now,
      deleted_at: null,
    })
    .execute();
  await tx
    .updateTable('su_enrolments')
    .set({ used_at: now, card_id: cardId, attempt_lease_until: null })
    .where('token', '=', enrolment.token)
    .execute();
}

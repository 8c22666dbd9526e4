// A charge on a subscription's stored card, booked as a paid transaction (capture, fee, settlement to the wallet
// like any payment). Two steps around the processor call, so no lock is held while it answers and only one caller
// ever charges a given payment:
//   1. `openCharge` (charge-open.ts, inside the caller's database transaction): the su_charges row, then a pending
//      `transactions` row, in that order, so a repeated `order` stops at the unique index before a payment exists;
//   2. `settleCharge` (after that commit, safe to repeat): claim the payment with an attempt key and a lease, call
//      the processor with the payment's id as idempotency key, then record success or rejection with its money.
//      A caller that finds the claim taken waits for the result; one that finds it final answers it. A payment no
//      processor ever saw, whose subscription has ended or whose card was deleted since it opened, is declined
//      unsent by the claim's commit instead (decision 670), or by the processor's last check right before it sends
//      (decision 825); so is one the processor proves it never received before it sends it again (decision 750).
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import type { ChargeOutcome } from '../../platform/processors/processor.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { processorForAccount } from '../../platform/processors/account-processors.ts';
import { newId } from '../../platform/ids/ids.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import { lockTransaction, type TransactionRow } from '../transactions/repository.ts';
import { recordRejection, recordSuccess } from '../transactions/transaction-result.ts';

/** Webpay, the card method (reference §1.1): what the fee rule and `media` of a subscription charge name. */
export const cardPayment = { payment: 1, name: 'Webpay' } as const;

async function cardOf(
  db: DbOrTx,
  transactionId: string,
): Promise<{ processor_token: string; deleted_at: Date | null }> {
  return db
    .selectFrom('su_charges as c')
    .innerJoin('su_cards as k', 'k.id', 'c.card_id')
    .select(['k.processor_token', 'k.deleted_at'])
    .where('c.transaction_id', '=', transactionId)
    .executeTakeFirstOrThrow();
}

/** What a caller adds to the commit that records the outcome. */
export interface SettleHooks {
  /** Takes the caller's business row locks first, before the payment's and the ledger's (decision 060). */
  readonly lockFirst?: (tx: Tx) => Promise<void>;
  /** Records the caller's part of the outcome in the same commit as the money. */
  readonly onFinal?: (tx: Tx, row: TransactionRow, at: Date) => Promise<void>;
  /** When the payment is booked, if not now: a recurring cycle's scheduled attempt time (decision 101). */
  readonly recordAt?: Date;
  /**
   * After lockFirst, whether the charge is still wanted: its subscription has not ended since it opened (a recurring
   * try, decision 670; an on-demand charge, decision 760). A payment never sent to the processor that is no longer
   * wanted is declined unsent.
   */
  readonly stillWanted?: () => boolean;
}

// One rule, checked at two moments. unwantedReason: why a payment is no longer wanted (its subscription ended, its
// card deleted). unwantedAtClaim: in the claim's commit, for a payment no processor ever saw (decision 670).
// unwantedAtSend: asked by the processor right before it sends (decisions 825, 750).

/** Why a payment is no longer wanted (its subscription ended, its card deleted), or null; after hooks.lockFirst. */
function unwantedReason(card: { deleted_at: Date | null }, hooks: SettleHooks): string | null {
  if (hooks.stillWanted?.() === false) return 'Cobro no enviado: la suscripción terminó.';
  if (card.deleted_at !== null) return 'Cobro no enviado: la tarjeta fue eliminada.';
  return null;
}

/** Why a payment never sent to the processor is declined unsent at its claim, or null when it may be sent. */
function unwantedAtClaim(
  row: TransactionRow,
  card: { deleted_at: Date | null },
  hooks: SettleHooks,
): string | null {
  // attempt_id is set by the first claim and never cleared (chargeClaimed): null means no processor ever saw it.
  if (row.attempt_id !== null) return null;
  return unwantedReason(card, hooks);
}

/**
 * Decision 670's check made again, under the caller's locks, by the processor right before it sends: a cancellation
 * that committed after the claim stops a first send (decision 825), and a payment whose earlier send the processor
 * proved it never received (Oneclick's status 404) is as unsent as one never claimed (decision 750). Only this
 * attempt's claim may ask; the decline itself is recorded by recordCharged with the caller's part.
 */
function unwantedAtSend(
  ctx: AppContext,
  transactionId: string,
  attemptKey: string,
  hooks: SettleHooks,
): () => Promise<string | null> {
  return () =>
    inTransaction(ctx.db, async (tx) => {
      await hooks.lockFirst?.(tx);
      const row = await lockTransaction(tx, transactionId);
      if (row?.status !== 'pending' || row.attempt_id !== attemptKey) return null;
      return unwantedReason(await cardOf(tx, transactionId), hooks);
    });
}

/** Settles the payment and answers its row once final (or still pending when another caller's claim outlives the wait). */
export async function settleCharge(
  ctx: AppContext,
  transactionId: string,
  hooks: SettleHooks = {},
): Promise<TransactionRow> {
  for (let round = 0; round < subscriptionLimits.chargeWaitRoundsMax; round++) {
    const attemptKey = newId('att', 20);
    const claim = await claimCharge(ctx, transactionId, attemptKey, hooks);
    if (claim.kind === 'final') return claim.row;
    if (claim.kind === 'busy') {
      await new Promise((resolve) => {
        setTimeout(resolve, subscriptionLimits.chargeWaitStepMs);
      });
      continue;
    }
    const recheck = unwantedAtSend(ctx, transactionId, attemptKey, hooks);
    const outcome = await chargeClaimed(ctx, claim.row, claim.token, attemptKey, recheck);
    return recordCharged(ctx, transactionId, attemptKey, outcome, hooks);
  }
  const row = await ctx.db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', transactionId)
    .executeTakeFirstOrThrow();
  return row as TransactionRow;
}

/**
 * The payment claimed for this attempt under a lease, or why not: already final, another attempt's, or declined
 * here unsent (unwantedAtClaim) with the caller's part, in the commit that would have claimed it.
 */
async function claimCharge(
  ctx: AppContext,
  transactionId: string,
  attemptKey: string,
  hooks: SettleHooks,
) {
  return inTransaction(ctx.db, async (tx) => {
    await hooks.lockFirst?.(tx);
    const row = await lockTransaction(tx, transactionId);
    if (row === undefined) throw new Error(`charge ${transactionId} vanished`);
    if (row.status !== 'pending') return { kind: 'final', row } as const;
    const now = await ctx.accountClock.now(row.account_id, tx);
    // The lease is on the service clock (decision 760): a sandbox clock advance never frees a live claim.
    const leaseNow = ctx.clock.now();
    if (row.attempt_lease_until !== null && row.attempt_lease_until.getTime() > leaseNow.getTime())
      return { kind: 'busy', row } as const;
    const card = await cardOf(tx, transactionId);
    const unsent = unwantedAtClaim(row, card, hooks);
    if (unsent !== null) {
      const at = hooks.recordAt ?? now;
      await recordRejection(tx, row, rejectionOf({ approved: false, gatewayMessage: unsent }), at);
      return { kind: 'final', row: await finish(tx, transactionId, hooks, at) } as const;
    }
    // The attempt's lease is the request's claim's (IDEMPOTENCY_LEASE_MS): a process killed during the processor
    // call frees both together, so the retry that takes the key over also takes the attempt over.
    await tx
      .updateTable('transactions')
      .set({
        attempt_id: attemptKey,
        attempt_lease_until: new Date(leaseNow.getTime() + ctx.config.idempotencyLeaseMs),
        updated_at: now,
      })
      .where('id', '=', transactionId)
      .execute();
    return { kind: 'claimed', row, token: card.processor_token } as const;
  });
}

/** The processor's charge of the stored card, keyed by the payment; the claim's lease is released when it throws. */
async function chargeClaimed(
  ctx: AppContext,
  row: TransactionRow,
  cardToken: string,
  attemptKey: string,
  unwantedAtSend: () => Promise<string | null>,
): Promise<ChargeOutcome> {
  try {
    // The account's processor: the sandbox's, or Oneclick Mall in production (issue 33).
    const processor = await processorForAccount(ctx, row.account_id);
    return await processor.chargeStoredCard({
      cardToken,
      installments: 0,
      idempotencyKey: row.id,
      amountMinor: BigInt(row.amount_minor),
      currency: row.currency,
      description: row.subject,
      unsentReason: unwantedAtSend,
      // The row as the claim found it: an attempt id already there is an earlier claim's trace of a call (decision 670).
      mayHaveBeenSent: row.attempt_id !== null,
    });
  } catch (error) {
    // The answer is lost, not "nothing sent": the lease goes, the attempt's id stays as the payment's trace of a
    // processor call (unwantedAtClaim).
    await ctx.db
      .updateTable('transactions')
      .set({ attempt_lease_until: null })
      .where('id', '=', row.id)
      .where('attempt_id', '=', attemptKey)
      .execute();
    throw error;
  }
}

/** The outcome recorded in one commit with the caller's hooks, if the claim is still this attempt's. */
async function recordCharged(
  ctx: AppContext,
  transactionId: string,
  attemptKey: string,
  outcome: ChargeOutcome,
  hooks: SettleHooks,
): Promise<TransactionRow> {
  return inTransaction(ctx.db, async (tx) => {
    await hooks.lockFirst?.(tx);
    const fresh = await lockTransaction(tx, transactionId);
    if (fresh === undefined) throw new Error(`charge ${transactionId} vanished`);
    if (fresh.status !== 'pending' || fresh.attempt_id !== attemptKey) {
      ctx.logger.error(
        { transaction: fresh.id, attempt: attemptKey, approved: outcome.approved },
        'subscription charge lost its claim',
      );
      return fresh;
    }
    const now = hooks.recordAt ?? (await ctx.accountClock.now(fresh.account_id, tx));
    if (outcome.approved)
      await recordSuccess(
        ctx,
        tx,
        fresh,
        {
          paidPayment: cardPayment.payment,
          media: cardPayment.name,
          authorizationCode: outcome.authorizationCode,
          cardBrand: outcome.cardBrand,
          cardLast4: outcome.cardLast4,
          cardToken: outcome.cardToken,
          cardType: outcome.cardType,
          installments: 0,
          payerIdentifier: null,
          payerBank: null,
          payerIp: null,
        },
        now,
      );
    else await recordRejection(tx, fresh, rejectionOf(outcome), now);
    return finish(tx, transactionId, hooks, now);
  });
}

/** A declined charge's rejection as the payment records it. */
function rejectionOf(outcome: {
  readonly approved: false;
  readonly gatewayMessage: string;
  readonly cardBrand?: string | null;
  readonly cardLast4?: string | null;
}) {
  return {
    reason: 'declined',
    gatewayMessage: outcome.gatewayMessage,
    paidPayment: cardPayment.payment,
    media: cardPayment.name,
    cardBrand: outcome.cardBrand ?? null,
    cardLast4: outcome.cardLast4 ?? null,
    payerIp: null,
  } as const;
}

/** The payment's final row, and the caller's part of its outcome in the same commit. */
async function finish(
  tx: Tx,
  transactionId: string,
  hooks: SettleHooks,
  at: Date,
): Promise<TransactionRow> {
  const final = await lockTransaction(tx, transactionId);
  if (final === undefined) throw new Error(`charge ${transactionId} vanished`);
  await hooks.onFinal?.(tx, final, at);
  return final;
}

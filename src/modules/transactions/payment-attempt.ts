// One payer's attempt to pay from the hosted checkout. Three steps so that no database lock is held while the
// processor answers (STYLE rule 10) and still only one attempt can ever charge:
//   1. lock the row, re-check it is pending and not expired, claim it with an attempt id and a lease;
//   2. charge through the processor with the attempt id as idempotency key;
//   3. lock the row again, check the claim is still ours, record the attempt and the result, money and callback
//      together. A decline before the attempts limit (src/limits/modules.ts) records the attempt only: the transaction stays
//      pending, the payer may try again, and no callback is written until the final result.
// A second tab submitting meanwhile finds the claim (step 1) or the final status, and never charges.
import type { AppContext } from '../../platform/context.ts';
import { newId } from '../../platform/ids/ids.ts';
import type { ChargeOutcome, ChargeRequest } from '../../platform/processors/processor.ts';
import {
  hasUndecidedCommit,
  processorForAccount,
} from '../../platform/processors/account-processors.ts';
import { transactionLimits } from '../../limits/index.ts';
import { lockTransaction } from './repository.ts';
import type { TransactionStatus } from './state-machine.ts';
import { expiryRejection, recordRejection, recordSuccess } from './transaction-result.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import { sql, type Insertable } from 'kysely';
import type { PaymentAttemptTable } from './types.ts';

export type AttemptOutcome =
  | { readonly kind: 'final'; readonly status: TransactionStatus }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'approved' }
  /** `attemptsLeft` 0: the transaction is rejected; more: it stays pending and the payer may try again. */
  | { readonly kind: 'declined'; readonly payerMessage: string; readonly attemptsLeft: number };

export interface AttemptInput {
  readonly transactionId: string;
  readonly method: { readonly payment: number; readonly name: string };
  /** Without idempotencyKey, amount, currency and description: this module fills them from the row. */
  readonly charge: DistributiveOmit<
    ChargeRequest,
    'idempotencyKey' | 'amountMinor' | 'currency' | 'description'
  >;
  readonly payerIdentifier: string | null;
  readonly payerBank: string | null;
  readonly payerIp: string | null;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A pending transaction whose expiry has passed, with no live attempt, is expired now. */
export function isExpired(
  row: { expires_at: Date | null; attempt_lease_until: Date | null },
  now: Date,
): boolean {
  if (row.expires_at === null || row.expires_at.getTime() > now.getTime()) return false;
  return row.attempt_lease_until === null || row.attempt_lease_until.getTime() <= now.getTime();
}

export type Claim =
  | { readonly kind: 'final'; readonly status: TransactionStatus }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'expired' }
  | {
      readonly kind: 'claimed';
      readonly accountId: string;
      readonly amountMinor: bigint;
      readonly currency: string;
      readonly description: string;
    };

/** Step 1: holds the pending transaction for this attempt for `leaseMs`, or says why it cannot. */
export async function claimAttempt(
  ctx: AppContext,
  transactionId: string,
  attemptId: string,
  leaseMs: number,
): Promise<Claim> {
  return inTransaction(ctx.db, async (tx) => {
    const row = await lockTransaction(tx, transactionId);
    if (row === undefined) throw new Error('attempt on a transaction that does not exist');
    if (row.status !== 'pending') return { kind: 'final', status: row.status } as const;
    const now = await ctx.accountClock.now(row.account_id, tx);
    const live =
      row.attempt_lease_until !== null && row.attempt_lease_until.getTime() > now.getTime();
    if (live || (ctx.config.mode === 'production' && (await hasUndecidedCommit(tx, row.id))))
      return { kind: 'in_progress' } as const;
    if (isExpired(row, now)) {
      await recordRejection(tx, row, expiryRejection, now);
      return { kind: 'expired' } as const;
    }
    await tx
      .updateTable('transactions')
      .set({
        attempt_id: attemptId,
        attempt_lease_until: new Date(now.getTime() + leaseMs),
        updated_at: now,
      })
      .where('id', '=', row.id)
      .execute();
    return {
      kind: 'claimed',
      accountId: row.account_id,
      amountMinor: BigInt(row.amount_minor),
      currency: row.currency,
      description: row.subject,
    } as const;
  });
}

/** Gives the transaction back when the processor call failed before deciding anything. */
export async function releaseClaim(
  ctx: AppContext,
  transactionId: string,
  attemptId: string,
): Promise<void> {
  await ctx.db
    .updateTable('transactions')
    .set({ attempt_id: null, attempt_lease_until: null })
    .where('id', '=', transactionId)
    .where('attempt_id', '=', attemptId)
    .execute();
}

/** What the outcome's record needs besides the processor's answer. */
export interface AttemptFacts {
  readonly transactionId: string;
  readonly attemptId: string;
  readonly method: { readonly payment: number; readonly name: string };
  /** Instalments the payer chose on Cobro's form; an acquirer's own answer (`installments`) wins. */
  readonly installments: number;
  readonly payerIdentifier: string | null;
  readonly payerBank: string | null;
  readonly payerIp: string | null;
}

/**
 * Step 3: under the row lock, if the claim is still this attempt's, records the attempt and its result: success
 * (money and callback), a decline the payer may retry (nothing else), or the last decline (rejected, callback).
 */
export async function recordOutcome(
  ctx: AppContext,
  facts: AttemptFacts,
  outcome: ChargeOutcome,
): Promise<AttemptOutcome> {
  return inTransaction(ctx.db, async (tx): Promise<AttemptOutcome> => {
    const row = await lockTransaction(tx, facts.transactionId);
    if (row === undefined) throw new Error('transaction vanished during an attempt');
    if (row.status !== 'pending' || row.attempt_id !== facts.attemptId) {
      // The lease ran out and something else decided; a real processor's charge must then be reversed.
      ctx.logger.error(
        { transaction: row.id, attempt: facts.attemptId, approved: outcome.approved },
        'payment attempt lost its claim',
      );
      return { kind: 'final', status: row.status };
    }
    const now = await ctx.accountClock.now(row.account_id, tx);
    const number = await recordAttempt(tx, {
      id: facts.attemptId,
      transaction_id: row.id,
      payment: facts.method.payment,
      media: facts.method.name,
      outcome: outcome.approved ? 'approved' : 'declined',
      gateway_message: outcome.approved ? 'successful transaction' : outcome.gatewayMessage,
      payer_message: outcome.approved ? null : outcome.payerMessage,
      card_brand: outcome.cardBrand,
      card_last4: outcome.cardLast4,
      payer_ip: facts.payerIp,
      created_at: now,
    });
    if (outcome.approved) {
      await recordSuccess(
        ctx,
        tx,
        row,
        {
          paidPayment: facts.method.payment,
          media: facts.method.name,
          authorizationCode: outcome.authorizationCode,
          cardBrand: outcome.cardBrand,
          cardLast4: outcome.cardLast4,
          cardToken: outcome.cardToken,
          cardType: outcome.cardType,
          installments: outcome.installments ?? facts.installments,
          payerIdentifier: facts.payerIdentifier,
          payerBank: facts.payerBank,
          payerIp: facts.payerIp,
        },
        now,
      );
      return { kind: 'approved' };
    }
    const attemptsLeft = Math.max(0, transactionLimits.paymentAttemptsMax - number);
    if (attemptsLeft > 0) {
      await tx
        .updateTable('transactions')
        .set({ attempt_id: null, attempt_lease_until: null, updated_at: now })
        .where('id', '=', row.id)
        .execute();
      return { kind: 'declined', payerMessage: outcome.payerMessage, attemptsLeft };
    }
    await recordRejection(
      tx,
      row,
      {
        reason: 'declined',
        gatewayMessage: outcome.gatewayMessage,
        paidPayment: facts.method.payment,
        media: facts.method.name,
        cardBrand: outcome.cardBrand,
        cardLast4: outcome.cardLast4,
        payerIp: facts.payerIp,
      },
      now,
    );
    return { kind: 'declined', payerMessage: outcome.payerMessage, attemptsLeft: 0 };
  });
}

export async function attemptPayment(
  ctx: AppContext,
  input: AttemptInput,
): Promise<AttemptOutcome> {
  const attemptId = newId('att', 20);
  const claim = await claimAttempt(
    ctx,
    input.transactionId,
    attemptId,
    transactionLimits.attemptLeaseMs,
  );
  if (claim.kind !== 'claimed') return claim;

  const processor = await processorForAccount(ctx, claim.accountId);
  const request = {
    ...input.charge,
    idempotencyKey: attemptId,
    amountMinor: claim.amountMinor,
    currency: claim.currency,
    description: claim.description,
  } as ChargeRequest;
  let outcome;
  try {
    outcome = await processor.charge(request);
  } catch (error) {
    // Release the claim so the payer can try again; the processor saw this key at most once.
    await releaseClaim(ctx, input.transactionId, attemptId);
    throw error;
  }
  return recordOutcome(
    ctx,
    {
      transactionId: input.transactionId,
      attemptId,
      method: input.method,
      installments: input.charge.kind === 'card' ? input.charge.installments : 0,
      payerIdentifier: input.payerIdentifier,
      payerBank: input.payerBank,
      payerIp: input.payerIp,
    },
    outcome,
  );
}

/** Appends the attempt with the next number of its transaction (the row is locked) and answers that number: one statement. */
export async function recordAttempt(
  tx: Tx,
  a: Omit<Insertable<PaymentAttemptTable>, 'number'>,
): Promise<number> {
  const inserted = await sql<{ number: number }>`
    INSERT INTO payment_attempts (id, transaction_id, number, payment, media, outcome, gateway_message, payer_message, card_brand, card_last4, payer_ip, created_at)
    SELECT ${a.id}::text, ${a.transaction_id}::text, COALESCE(MAX(number), 0) + 1, ${a.payment}::integer, ${a.media}::text,
      ${a.outcome}::text, ${a.gateway_message}::text, ${a.payer_message ?? null}::text, ${a.card_brand ?? null}::text,
      ${a.card_last4 ?? null}::text, ${a.payer_ip ?? null}::text, ${a.created_at}::timestamptz
    FROM payment_attempts WHERE transaction_id = ${a.transaction_id}
    RETURNING number`.execute(tx);
  return Number(inserted.rows[0]!.number);
}

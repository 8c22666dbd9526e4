// Step 3 of an attempt (payment-attempt.ts): lock the row again, check the claim is still ours, record the attempt
// and the result, money and callback together. A decline before the attempts limit (src/limits/modules.ts) records
// the attempt only: the transaction stays pending, the payer may try again, and no callback is written until the
// final result.
import type { AppContext } from '../../platform/context.ts';
import type {
  ApprovedCharge,
  ChargeOutcome,
  DeclinedCharge,
} from '../../platform/processors/processor.ts';
import { transactionLimits } from '../../limits/index.ts';
import type { TransactionRow } from './repository.ts';
import { isPaid, type TransactionStatus } from './state-machine.ts';
import { recordRejection, recordSuccess } from './transaction-result.ts';
import type { Approval } from './success-statement.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import { lockForOutcomes } from './outcome-statement.ts';
import type { FeeRule } from './fees.ts';

export type AttemptOutcome =
  | { readonly kind: 'final'; readonly status: TransactionStatus }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'expired' }
  /** `paid`: the row as the payment left it (the result page shows it without reading it again). */
  | { readonly kind: 'approved'; readonly paid: TransactionRow }
  /** `attemptsLeft` 0: the transaction is rejected; more: it stays pending and the payer may try again. */
  | { readonly kind: 'declined'; readonly payerMessage: string; readonly attemptsLeft: number };

/** What the outcome's record needs besides the processor's answer. */
export interface AttemptFacts {
  readonly transactionId: string;
  /** The transaction's account, whose clock says when the attempt is recorded. */
  readonly accountId: string;
  readonly attemptId: string;
  readonly method: { readonly payment: number; readonly name: string };
  /** Instalments the payer chose on Cobro's form; an acquirer's own answer (`installments`) wins. */
  readonly installments: number;
  readonly payerIdentifier: string | null;
  readonly payerBank: string | null;
  readonly payerIp: string | null;
}

/**
 * Under the row lock (taken with the attempt's INSERT and the fee rule's read, outcome-statement.ts), if the claim is
 * still this attempt's, records the attempt and its result: success (money and
 * callback), a decline the payer may retry (nothing else), or the last decline (rejected, callback).
 * `withSuccess` writes in the same transaction as a success, and only then.
 */
export async function recordOutcome(
  ctx: AppContext,
  facts: AttemptFacts,
  outcome: ChargeOutcome,
  withSuccess?: (tx: Tx) => Promise<void>,
): Promise<AttemptOutcome> {
  const now = await ctx.accountClock.now(facts.accountId, ctx.db, { kept: true });
  return inTransaction(ctx.db, async (tx): Promise<AttemptOutcome> => {
    const locked = await lockAttempt(ctx, tx, facts, outcome, now);
    if (locked.kind === 'decided') return locked.answer;
    const { row, attemptNumber, feeRule } = locked;
    if (!outcome.approved) return recordDecline(tx, row, facts, outcome, attemptNumber, now);
    const approval = approvalOf(facts, outcome);
    const paid = await recordSuccess(ctx, tx, row, approval, now, feeRule);
    // What the caller records with the success, so that neither stands without the other (decision 1235).
    if (withSuccess !== undefined) await withSuccess(tx);
    return { kind: 'approved', paid };
  });
}

/** An attempt's row once locked: `held` by its claim, or `decided` without it (see lockAttempt). */
type LockedAttempt =
  | { readonly kind: 'decided'; readonly answer: AttemptOutcome }
  | {
      readonly kind: 'held';
      readonly row: TransactionRow;
      readonly attemptNumber: number;
      readonly feeRule: FeeRule;
    };

/**
 * Locks the attempt's row and appends the attempt, by one statement (outcome-statement.ts, an attempt alone a group
 * of one: since decision 730 the groups of successes are cobro_record_successes', success-record.ts).
 * `decided` when the claim is no longer the attempt's, so nothing was written: the row paid by this very attempt
 * (recorded already) answers paid; otherwise the lease ran out and something else decided, and the row's status is
 * the answer.
 */
async function lockAttempt(
  ctx: AppContext,
  tx: Tx,
  facts: AttemptFacts,
  outcome: ChargeOutcome,
  now: Date,
): Promise<LockedAttempt> {
  const [locked] = await lockForOutcomes(
    tx,
    [
      {
        transactionId: facts.transactionId,
        attemptId: facts.attemptId,
        payment: facts.method.payment,
        media: facts.method.name,
        outcome: outcome.approved ? 'approved' : 'declined',
        gatewayMessage: outcome.approved ? 'successful transaction' : outcome.gatewayMessage,
        payerMessage: outcome.approved ? null : outcome.payerMessage,
        cardBrand: outcome.cardBrand,
        cardLast4: outcome.cardLast4,
        payerIp: facts.payerIp,
      },
    ],
    now,
  );
  if (locked === undefined) throw new Error('transaction vanished during an attempt');
  const { row, attemptNumber, feeRule } = locked;
  if (attemptNumber !== null) return { kind: 'held', row, attemptNumber, feeRule };
  // Recorded already by this very attempt (a lost redirect commit decided again after its record, decision 150): paid, whatever refund has moved it since (the
  // part given back outside Cobro recorded with it, decision 1042), so no claim was lost (decision 1043).
  if (row.charge_key === facts.attemptId && isPaid(row.status))
    return { kind: 'decided', answer: { kind: 'approved', paid: row } };
  // A real processor's charge must then be reversed.
  ctx.logger.error(
    { transaction: row.id, attempt: facts.attemptId, approved: outcome.approved },
    'payment attempt lost its claim',
  );
  return { kind: 'decided', answer: { kind: 'final', status: row.status } };
}

export function approvalOf(facts: AttemptFacts, outcome: ApprovedCharge): Approval {
  return {
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
  };
}

/** The attempt numbered `number` was declined: give the row back for another try, or reject it at the limit. */
async function recordDecline(
  tx: Tx,
  row: TransactionRow,
  facts: AttemptFacts,
  outcome: DeclinedCharge,
  number: number,
  now: Date,
): Promise<AttemptOutcome> {
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
}

// A Fintoc payment confirmed after Cobro declined its attempt (decision 1055): `payment_intent.failed`, then
// `payment_intent.succeeded` for the same intent. Decided as Stripe decides a payment the acquirer confirms: it
// completes the sale when the sale is still payable. The declined attempt's claim was given back at the decline (its
// row in payment_attempts stays as it was, declined), so the late payment is a new attempt of the same session: it
// claims the sale as any try does (attempt-claim.ts: pending, no live lease, no undecided session, not expired) and
// is recorded as any Fintoc success is (attempt-outcome.ts: ledger, callback and the sale paid in one transaction).
// The claim decides between it and any other try: a sale paid, expired, rejected or held by another try (the payer
// paying by card right now) is not payable, and the money is reported as before (decision 1012).
import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../../platform/db/types.ts';
import type { AppContext } from '../../platform/context.ts';
import type { ProcessorSessionTable } from '../../platform/processors/account-processors.ts';
import type { ApprovedCharge } from '../../platform/processors/processor.ts';
import { transactionLimits } from '../../limits/index.ts';
import { isPaid } from '../transactions/state-machine.ts';
import { claimAttempt } from '../transactions/attempt-claim.ts';
import { recordOutcome, type AttemptOutcome } from '../transactions/attempt-outcome.ts';

/** What the declined attempt's id is hashed after; late-claim-recover.ts computes the same id in SQL. */
export const lateAttemptSeed = 'fintoc late success:';

/**
 * The late attempt's id, the same for every delivery of the session's late success (decision 1080): one session is
 * one Fintoc intent, so it is paid late at most once. A delivery finding the sale held under this id knows the holder
 * records the same money: another delivery of the same news now, or one stopped after its claim. Shaped as newId's
 * (`att` and 20 hex digits).
 */
export function lateAttemptId(session: Selectable<ProcessorSessionTable>): string {
  const digest = createHash('sha256').update(`${lateAttemptSeed}${session.attempt_id}`);
  return `att${digest.digest('hex').slice(0, 20)}`;
}

/** True when the sale is held right now by the attempt `attemptId`. */
async function heldBy(ctx: AppContext, transactionId: string, attemptId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('transactions')
    .select('attempt_id')
    .where('id', '=', transactionId)
    .executeTakeFirstOrThrow();
  return row.attempt_id === attemptId;
}

/** What recording an approval needs besides the attempt: the method paid and the payer's IP. */
export interface LateFacts {
  readonly method: { readonly payment: number; readonly name: string };
  readonly payerIp: string | null;
}

/**
 * Pays the sale of `session` (declined) from Fintoc's late approval, already checked for the sale's amount and
 * currency, when the sale is still payable; the attempt's answer. When it is not, nothing is written but the
 * claim's own effects (an expired sale is rejected, as any try on it rejects it) and the caller reports the money.
 * A sale held by this same late attempt (`lateAttemptId`) is recorded all the same: nothing is asked of Fintoc between
 * the claim and the record, so the holder can only be a simultaneous delivery of the same news, whose record and this
 * one are decided under the sale's row lock (the second finds it paid by this attempt and answers it approved), or a
 * delivery stopped after its claim, which this one finishes (decision 1080).
 */
export async function payLate(
  ctx: AppContext,
  session: Selectable<ProcessorSessionTable>,
  approval: ApprovedCharge,
  facts: LateFacts,
): Promise<AttemptOutcome> {
  const attemptId = lateAttemptId(session);
  const claim = await claimAttempt(ctx, {
    transactionId: session.transaction_id,
    accountId: session.account_id,
    attemptId,
    leaseMs: transactionLimits.acquirer.redirectLeaseMs,
  });
  const ours =
    claim.kind === 'claimed' ||
    (claim.kind === 'in_progress' && (await heldBy(ctx, session.transaction_id, attemptId)));
  if (!ours) return claim;
  const result = await recordOutcome(
    ctx,
    {
      transactionId: session.transaction_id,
      accountId: session.account_id,
      attemptId,
      method: facts.method,
      installments: 0,
      payerIdentifier: null,
      payerBank: 'Fintoc',
      payerIp: facts.payerIp,
    },
    approval,
    // The session's mark commits with the payment: a failure between the two (an outage, a kill) once left the sale
    // paid and its session `declined`, which nothing delivered again would mend when the due work had paid it
    // (decision 1235), and reconcile then reported Fintoc's movement as matching no sale.
    (tx) => markApproved(ctx, session, tx),
  );
  if (result.kind !== 'approved') return result;
  // A sale found paid by this same attempt (decided, not recorded now) was recorded before this mark was part of it.
  await markApproved(ctx, session);
  ctx.logger.info(
    {
      attempt: attemptId,
      declinedAttempt: session.attempt_id,
      transaction: session.transaction_id,
    },
    'Fintoc confirmed a payment after its decline: the sale, still payable, is paid',
  );
  return result;
}

/**
 * The session now paid its sale: `cobro fintoc reconcile` expects its movement (by the intent, the sale's
 * authorization code) and a refund of the sale finds it, as for a session approved in time.
 */
async function markApproved(
  ctx: AppContext,
  session: Selectable<ProcessorSessionTable>,
  db: Db = ctx.db,
): Promise<void> {
  await db
    .updateTable('processor_sessions')
    .set({ state: 'approved', updated_at: ctx.clock.now() })
    .where('attempt_id', '=', session.attempt_id)
    .where('state', '=', 'declined')
    .execute();
}

/**
 * True when the sale `payLate` found not payable was paid by this very approval (its authorization code, Fintoc's
 * intent): an earlier delivery of the event paid it and stopped before marking the session, or another `cobro
 * serve` handling the same event paid it first (decision 1070). The session is then marked, as that delivery would
 * have, and nothing is the operator's to give back.
 */
export async function paidByItAlready(
  ctx: AppContext,
  session: Selectable<ProcessorSessionTable>,
  approval: ApprovedCharge,
): Promise<boolean> {
  const sale = await ctx.db
    .selectFrom('transactions')
    .select(['status', 'authorization_code'])
    .where('id', '=', session.transaction_id)
    .executeTakeFirstOrThrow();
  if (!isPaid(sale.status) || sale.authorization_code !== approval.authorizationCode) return false;
  await markApproved(ctx, session);
  return true;
}

// Settles a bank-transfer sale paid through Fintoc (issue 34): Fintoc's webhook (checkout_session.finished or
// .expired) or the payer's return, whichever comes first, records the attempt's outcome once. The session row
// (processor_sessions, by Fintoc's checkout session id) says whether it is decided; recordOutcome records only
// while the transaction is pending and held by this attempt, so a replayed, late or racing event changes nothing.
import assert from 'node:assert/strict';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { ChargeOutcome } from '../../platform/processors/processor.ts';
import type { ProcessorSessionTable } from '../../platform/processors/account-processors.ts';
import {
  declined,
  fintocProcessorName,
  paidOf,
} from '../../platform/processors/fintoc-processor.ts';
import { unsignedMinorOf } from '../../platform/money/exact-minor.ts';
import { recordOutcome, type AttemptOutcome } from '../transactions/attempt-outcome.ts';
import type { TransactionStatus } from '../transactions/state-machine.ts';
import { paidByItAlready, payLate } from './late-success.ts';

export type FintocSession = Selectable<ProcessorSessionTable>;

export async function fintocSession(
  ctx: AppContext,
  by: { readonly token: string } | { readonly attemptId: string },
): Promise<FintocSession | undefined> {
  let q = ctx.db
    .selectFrom('processor_sessions')
    .selectAll()
    .where('processor', '=', fintocProcessorName);
  q = 'token' in by ? q.where('token', '=', by.token) : q.where('attempt_id', '=', by.attemptId);
  return q.executeTakeFirst();
}

/** The bank-transfer method the sale was paid with: the payer's choice, its fixed one, else Fintoc's (19). */
async function methodOf(
  ctx: AppContext,
  session: FintocSession,
): Promise<{ payment: number; name: string }> {
  const rows = await ctx.db
    .selectFrom('payment_methods')
    .innerJoin('transactions', 'transactions.currency', 'payment_methods.currency')
    .select(['payment_methods.payment', 'payment_methods.name', 'transactions.payment as fixed'])
    .where('transactions.id', '=', session.transaction_id)
    .where('payment_methods.kind', '=', 'bank_transfer')
    .execute();
  const pick =
    rows.find((r) => r.payment === session.payment) ??
    rows.find((r) => r.payment === r.fixed) ??
    rows.find((r) => r.name === 'Fintoc') ??
    rows[0];
  return { payment: pick?.payment ?? 19, name: pick?.name ?? 'Fintoc' };
}

/**
 * The outcome to record: a payment Fintoc reports for another amount or currency than the sale's (decision 965) pays
 * nothing: the attempt is declined and the operator told to give back what moved (`cobro fintoc reconcile` then
 * shows its movement as matching no sale). Fintoc's amount is read exactly, never as a float.
 */
async function asPaid(
  ctx: AppContext,
  session: FintocSession,
  outcome: ChargeOutcome,
  paidBy: Record<string, unknown> | null,
): Promise<ChargeOutcome> {
  if (!outcome.approved) return outcome;
  assert(paidBy !== null, 'an approved Fintoc payment is read from what Fintoc sent');
  const sale = await ctx.db
    .selectFrom('transactions')
    .select(['amount_minor', 'currency'])
    .where('id', '=', session.transaction_id)
    .executeTakeFirstOrThrow();
  const paid = paidOf(paidBy);
  if (unsignedMinorOf(paid.amount) === BigInt(sale.amount_minor) && paid.currency === sale.currency)
    return outcome;
  ctx.logger.error(
    {
      attempt: session.attempt_id,
      transaction: session.transaction_id,
      paid: { amount: String(paid.amount), currency: String(paid.currency) },
      sale: { amountMinor: String(sale.amount_minor), currency: sale.currency },
    },
    'Fintoc reports a payment for another amount or currency than the sale: declined; refund it by hand',
  );
  return declined('mismatch');
}

/** The sale's status, as the answer to an event that records nothing. */
async function finalOf(
  ctx: AppContext,
  session: FintocSession,
): Promise<{ readonly kind: 'final'; readonly status: TransactionStatus }> {
  const row = await ctx.db
    .selectFrom('transactions')
    .select('status')
    .where('id', '=', session.transaction_id)
    .executeTakeFirstOrThrow();
  return { kind: 'final', status: row.status };
}

/** Fintoc took the payer's money and no sale records it: the operator gives it back by hand (decisions 511, 1012). */
function logDecidedOtherwise(ctx: AppContext, session: FintocSession, result: string): void {
  ctx.logger.error(
    {
      attempt: session.attempt_id,
      transaction: session.transaction_id,
      session: session.state,
      result,
    },
    'Fintoc payment of a sale decided otherwise: refund it by hand',
  );
}

/**
 * Records `outcome` for the session's attempt unless it is decided already; the attempt's result either way.
 * `paidBy` is the Fintoc object (checkout session or payment intent) an approval was read from, null for a decline
 * Cobro makes itself: an approval is recorded only for the sale's amount and currency (decision 965).
 */
export async function settleFintocSession(
  ctx: AppContext,
  session: FintocSession,
  reported: ChargeOutcome,
  paidBy: Record<string, unknown> | null,
  payerIp: string | null,
  abandoned = false,
): Promise<AttemptOutcome> {
  if (session.state === 'declined' && reported.approved) {
    // Fintoc confirms money for an attempt it had failed (payment_intent.failed, then .succeeded): it pays the sale
    // if the sale is still payable (decision 1055); otherwise the operator is told now, as below, and reconcile
    // reports its movement as unmatched (decision 1012).
    const outcome = await asPaid(ctx, session, reported, paidBy);
    if (!outcome.approved) return finalOf(ctx, session);
    const method = await methodOf(ctx, session);
    const result = await payLate(ctx, session, outcome, { method, payerIp });
    // Paid by this very news: an earlier delivery, or a simultaneous one that recorded it first (decisions 1070, 1080).
    if (
      (result.kind === 'final' || result.kind === 'in_progress') &&
      (await paidByItAlready(ctx, session, outcome))
    )
      return result;
    if (result.kind !== 'approved') logDecidedOtherwise(ctx, session, result.kind);
    return result;
  }
  if (session.state !== 'redirected') {
    const final = await finalOf(ctx, session);
    // Money for a session Cobro closed itself (abandoned): nothing records it (decision 1012).
    if (reported.approved && session.state !== 'approved')
      logDecidedOtherwise(ctx, session, final.status);
    return final;
  }
  const outcome = await asPaid(ctx, session, reported, paidBy);
  const result = await recordOutcome(
    ctx,
    {
      transactionId: session.transaction_id,
      accountId: session.account_id,
      attemptId: session.attempt_id,
      method: await methodOf(ctx, session),
      installments: 0,
      payerIdentifier: null,
      payerBank: 'Fintoc',
      payerIp,
    },
    outcome,
  );
  if (outcome.approved && result.kind !== 'approved')
    // Fintoc took the payer's money for a sale decided otherwise (paid by another attempt, or its session closed
    // by Cobro too late): nothing records it, and the operator must give it back by hand (decision 511).
    logDecidedOtherwise(ctx, session, result.kind);
  const state = outcome.approved ? 'approved' : abandoned ? 'abandoned' : 'declined';
  await ctx.db
    .updateTable('processor_sessions')
    .set({ state, updated_at: ctx.clock.now() })
    .where('attempt_id', '=', session.attempt_id)
    .where('state', '=', 'redirected')
    .execute();
  return result;
}

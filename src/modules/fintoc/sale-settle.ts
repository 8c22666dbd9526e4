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
  if (session.state !== 'redirected') {
    const row = await ctx.db
      .selectFrom('transactions')
      .select('status')
      .where('id', '=', session.transaction_id)
      .executeTakeFirstOrThrow();
    // Fintoc reports money for an attempt Cobro already declined (a payment_intent.failed, then .succeeded for the
    // same intent, decision 1012): nothing records it, so the operator is told now, as below; reconcile reports its
    // movement as unmatched.
    if (reported.approved && session.state !== 'approved')
      ctx.logger.error(
        {
          attempt: session.attempt_id,
          transaction: session.transaction_id,
          session: session.state,
          result: row.status,
        },
        'Fintoc payment of a sale decided otherwise: refund it by hand',
      );
    return { kind: 'final', status: row.status };
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
    ctx.logger.error(
      { attempt: session.attempt_id, transaction: session.transaction_id, result: result.kind },
      'Fintoc payment of a sale decided otherwise: refund it by hand',
    );
  const state = outcome.approved ? 'approved' : abandoned ? 'abandoned' : 'declined';
  await ctx.db
    .updateTable('processor_sessions')
    .set({ state, updated_at: ctx.clock.now() })
    .where('attempt_id', '=', session.attempt_id)
    .where('state', '=', 'redirected')
    .execute();
  return result;
}

// The checkout's approved payments without an extension, recorded by one statement (decision 730): one call of
// cobro_record_successes (migration 0520, where the whole write is: the rows locked, each attempt appended, its fee,
// the row paid, its callback, the ledger's captures and fees with their running balances). A single statement is
// atomic by itself, so it runs with no BEGIN and no COMMIT: one round trip for a payment alone or a group of an
// account's (success-group-commit.ts, decision 615), where there were six (BEGIN, the lock, the success, the
// ledger's lock, its journals, COMMIT). Everything the database does not decide is computed here from what the
// claim read (the row's keys, its urlnotify): the callback's body, the availability date, the journals' ids.
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import { newId } from '../../platform/ids/ids.ts';
import { callbackRow } from '../../platform/notifications/enqueue.ts';
import type { ApprovedCharge } from '../../platform/processors/processor.ts';
import { approvalOf, type AttemptFacts, type AttemptOutcome } from './attempt-outcome.ts';
import type { TransactionRow } from './repository.ts';
import { isPaid } from './state-machine.ts';
import { availabilityDate, resultCallback } from './transaction-result.ts';

/**
 * $1 the account, $2 its now, $3 the deposit date, $4 the settlement's due time; then one array a column, a payment
 * an element: $5 transaction ids, $6 attempt ids (each its claim's), $7 payments (the method paid), $8 media,
 * $9 authorization codes, $10 card brands, $11 card last 4s, $12 card tokens, $13 card types, $14 instalments,
 * $15 payer identifiers, $16 payer banks, $17 payer IPs, $18 capture journal ids, $19 fee journal ids, $20-$25 the
 * callback (null when the row names no urlnotify): ids, URLs, event types, bodies, statuses, attempts.
 */
export const recordSuccessesText =
  'SELECT * FROM cobro_record_successes($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)';

/** An approved payment: what the attempt knows, the processor's approval, and the row its claim read. */
export interface ApprovedPayment {
  readonly facts: AttemptFacts;
  readonly outcome: ApprovedCharge;
  /** The row as the claim returned it: its keys and urlnotify, which never change, make the callback's body. */
  readonly claimed: TransactionRow;
}

/**
 * Records the payments of one account, each paid once by its own claim; answers in the order given: `approved`
 * with the row paid (now, or already by this very attempt: a group's commit whose answer was lost, recorded again
 * alone), or `final` with the row's status when the claim was lost and nothing was written.
 */
export async function recordSuccesses(
  ctx: AppContext,
  accountId: string,
  payments: readonly ApprovedPayment[],
): Promise<AttemptOutcome[]> {
  assert.ok(payments.length >= 1, 'a success statement records a payment at least');
  const now = await ctx.accountClock.now(accountId, ctx.db, { kept: true });
  const { date, dueAt } = availabilityDate(ctx, now);
  const planned = payments.map(({ facts, outcome, claimed }) => {
    assert.equal(facts.accountId, accountId, "a group holds one account's payments");
    assert.equal(claimed.id, facts.transactionId, 'the claimed row is the payment’s');
    assert.equal(claimed.extension, null, 'a payment with an extension is recorded alone');
    const approval = approvalOf(facts, outcome);
    const callback = resultCallback(claimed, 'success', now, approval);
    return { facts, approval, callback: callback === null ? null : callbackRow(callback) };
  });
  const column = <T>(pick: (p: (typeof planned)[number]) => T): T[] => planned.map(pick);
  const { rows } = await ctx.db.executeQuery<TransactionRow>(
    CompiledQuery.raw(recordSuccessesText, [
      accountId,
      now,
      date,
      dueAt,
      column((p) => p.facts.transactionId),
      column((p) => p.facts.attemptId),
      column((p) => p.approval.paidPayment),
      column((p) => p.approval.media),
      column((p) => p.approval.authorizationCode),
      column((p) => p.approval.cardBrand),
      column((p) => p.approval.cardLast4),
      column((p) => p.approval.cardToken),
      column((p) => p.approval.cardType),
      column((p) => p.approval.installments),
      column((p) => p.approval.payerIdentifier),
      column((p) => p.approval.payerBank),
      column((p) => p.approval.payerIp),
      column(() => newId('jr', 20)),
      column(() => newId('jr', 20)),
      column((p) => p.callback?.id ?? null),
      column((p) => p.callback?.url ?? null),
      column((p) => p.callback?.event_type ?? null),
      column((p) => p.callback?.body ?? null),
      column((p) => p.callback?.status ?? null),
      column((p) => p.callback?.attempts ?? null),
    ]),
  );
  assert.equal(rows.length, payments.length, 'the statement answers one row a payment');
  return rows.map((row, index) => answerOf(ctx, row, payments[index]!.facts));
}

/** The payment's answer from its row as the statement left it. */
function answerOf(ctx: AppContext, row: TransactionRow, facts: AttemptFacts): AttemptOutcome {
  assert.equal(row.id, facts.transactionId, 'answered in the order given');
  // Paid by this attempt: now, or already (a group's commit whose answer was lost, recorded again alone), whatever
  // refund has moved it since (decisions 1043, 1055).
  if (isPaid(row.status) && row.charge_key === facts.attemptId)
    return { kind: 'approved', paid: row };
  // The lease ran out and something else decided: a real processor's charge must then be reversed.
  ctx.logger.error(
    { transaction: row.id, attempt: facts.attemptId, approved: true },
    'payment attempt lost its claim',
  );
  return { kind: 'final', status: row.status };
}

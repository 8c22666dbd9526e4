// Giving a collected refund back to the payer through the processor (docs/refunds.md). No lock is held while the
// processor answers (STYLE rule 10): claim the nullification with a lease, call the processor with the
// nullification's id as its idempotency key (so asking twice refunds once), then record its answer
// (refund-answer.ts): approved, refused (the money back), or taken and not finished (Fintoc, decision 745: asked
// about again later, with the processor's refund id, by this same due work). The command runs it right
// after its commit; the `refund-dispatch` due work picks up any whose dispatch was cut short, telling the processor
// it is a retry so one without idempotency keys (Webpay) reads its own record before sending it again (decision 141).
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import type { RefundOutcome, RefundRequest } from '../../platform/processors/processor.ts';
import { processorForAccount } from '../../platform/processors/account-processors.ts';
import {
  fintocProcessorFor,
  paidThroughFintoc,
} from '../../platform/processors/fintoc-selection.ts';
import { refundLimits } from '../../limits/index.ts';
import { lockTransaction } from '../transactions/repository.ts';
import { lockNullification, type NullificationRow } from './repository.ts';
import { recordRefundAnswer } from './refund-answer.ts';
import { externalCodePrefix } from './refund-external.ts';
import './types.ts';

interface Claimed {
  readonly row: NullificationRow;
  readonly chargeKey: string;
  readonly authorizationCode: string;
  /** An earlier dispatch may have reached the processor (its answer was lost): what the processor reconciles with. */
  readonly retry?: RefundRequest['retry'];
}

/** refundLimits.dispatchLeaseMs, or ATTEMPT_LEASE_MS when that is shorter (decision 785). */
function dispatchLeaseMs(ctx: AppContext): number {
  return Math.min(refundLimits.dispatchLeaseMs, ctx.config.attemptLeaseMs);
}

/**
 * A refund sent and never answered (no processor refund id), first dispatched more than
 * refundLimits.lostAnswerAskMsMax ago, is not asked again: it is left unresolved for the operator, an error logged
 * (decision 1026). A Webpay retry that reads a balance it does not expect (two refunds of a charge both lost,
 * decision 1011) would otherwise be asked every lease for good.
 */
async function leftUnresolved(ctx: AppContext, tx: Tx, row: NullificationRow, now: Date) {
  const firstAt = row.dispatch_first_at;
  if (row.dispatch_attempts === 0 || row.refund_code !== null || firstAt === null) return false;
  if (now.getTime() - firstAt.getTime() <= refundLimits.lostAnswerAskMsMax) return false;
  ctx.logger.error(
    { nullification: row.id, attempts: row.dispatch_attempts, firstSentAt: firstAt },
    'refund answer lost and still undecided past refundLimits.lostAnswerAskMsMax: no longer asked or sent; check it at the processor, then `cobro refunds resolve`',
  );
  await tx
    .updateTable('nullifications')
    .set({ dispatch_due_at: null })
    .where('id', '=', row.id)
    .execute();
  return true;
}

/**
 * Whether this ask must wait for another refund of the same sale (decision 1115). A retry reconciles with what the
 * processor holds of the charge (Webpay's balance, decision 141), which cannot tell its own part from another
 * refund's of the same amount: while another is sent and unanswered with its ask still live (its lease running), its
 * part may or may not be in that balance and its answer is still to be recorded, so the retry waits. A first send
 * waits while another refund of the sale is being retried (asked again, its lease running), for the same reason seen
 * from the other side. Asks of one sale are decided under its row lock, so two never pass this check together.
 * Answers when the last such lease runs out (the wait's end), or null when nothing holds this ask up.
 */
async function waitsForAnother(tx: Tx, row: NullificationRow, now: Date): Promise<Date | null> {
  await lockTransaction(tx, row.transaction_id);
  const other = await tx
    .selectFrom('nullifications')
    .select((eb) => eb.fn.max('dispatch_due_at').as('until'))
    .where('transaction_id', '=', row.transaction_id)
    .where('id', '<>', row.id)
    .where('status', '=', 'complete')
    .where('channel', '=', 'processor')
    .where('refund_code', 'is', null)
    .where('dispatch_due_at', '>', now)
    // A retry waits for any other sent (one attempt or more); a first send only for one asked again (two or more).
    .where('dispatch_attempts', '>=', row.dispatch_attempts > 0 ? 1 : 2)
    .executeTakeFirstOrThrow();
  return other.until ?? null;
}

/**
 * The refund claimed for one ask; `unresolved` when it was left for the operator instead; `waiting` when it waits
 * for another refund of its sale (asked again after a lease); null when not due.
 */
async function claim(
  ctx: AppContext,
  tx: Tx,
  row: NullificationRow | undefined,
): Promise<Claimed | 'unresolved' | 'waiting' | null> {
  if (row === undefined || row.status !== 'complete' || row.dispatch_due_at === null) return null;
  // dispatch_due_at is on the service clock (decision 785): it is also the dispatch's lease, and a sandbox clock
  // advance must never free a live one.
  const now = ctx.clock.now();
  if (row.dispatch_due_at.getTime() > now.getTime()) return null;
  if (await leftUnresolved(ctx, tx, row, now)) return 'unresolved';
  const waitUntil = await waitsForAnother(tx, row, now);
  if (waitUntil !== null) {
    // Not asked, not counted as an attempt: due again once the other's lease has run out, not a lease from now. A
    // wait looks like an ask in flight to the others (a later due time, no answer): one that ended past the other's
    // lease would hold that other up in turn, each waiting on the other's wait for good (decision 1165).
    await tx
      .updateTable('nullifications')
      .set({ dispatch_due_at: waitUntil })
      .where('id', '=', row.id)
      .execute();
    return 'waiting';
  }
  const payment = await tx
    .selectFrom('transactions')
    .select(['charge_key', 'authorization_code', 'id', 'amount_minor'])
    .where('id', '=', row.transaction_id)
    .executeTakeFirstOrThrow();
  let retry: Claimed['retry'];
  if (row.dispatch_attempts > 0) {
    // What the processor already gave back of the charge: the refunds it answered, and those made at the acquirer
    // and recorded by the operator (decision 1025) even while they still wait for funds in Cobro (decision 1045).
    const done = await tx
      .selectFrom('nullifications')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('amount_minor'), eb.val('0')).as('total'))
      .where('transaction_id', '=', row.transaction_id)
      .where((eb) =>
        eb.or([
          eb('status', '=', 'reverse_completed'),
          eb('refund_code', 'like', `${externalCodePrefix}%`),
        ]),
      )
      .where('id', '<>', row.id)
      .executeTakeFirstOrThrow();
    retry = {
      chargeAmountMinor: BigInt(payment.amount_minor),
      refundedBeforeMinor: BigInt(done.total),
      tryNumber: row.dispatch_attempts + 1,
      firstSentAt: row.dispatch_first_at ?? row.created_at,
    };
  }
  await tx
    .updateTable('nullifications')
    .set((eb) => ({
      dispatch_due_at: new Date(now.getTime() + dispatchLeaseMs(ctx)),
      dispatch_attempts: eb('dispatch_attempts', '+', 1),
      dispatch_first_at: row.dispatch_first_at ?? now,
    }))
    .where('id', '=', row.id)
    .execute();
  return {
    row,
    chargeKey: payment.charge_key ?? payment.id,
    authorizationCode: payment.authorization_code ?? '',
    ...(retry === undefined ? {} : { retry }),
  };
}

async function ask(ctx: AppContext, claimed: Claimed): Promise<void> {
  let outcome: RefundOutcome;
  try {
    // The processor that took the payment gives it back: the account's Webpay Plus in production, else the sandbox's.
    const processor =
      ((await paidThroughFintoc(ctx.db, claimed.row.transaction_id))
        ? await fintocProcessorFor(ctx, claimed.row.account_id)
        : null) ?? (await processorForAccount(ctx, claimed.row.account_id));
    outcome = await processor.refund({
      chargeIdempotencyKey: claimed.chargeKey,
      transactionId: claimed.row.transaction_id,
      authorizationCode: claimed.authorizationCode,
      idempotencyKey: claimed.row.id,
      amountMinor: BigInt(claimed.row.amount_minor),
      currency: claimed.row.currency,
      ...(claimed.retry === undefined ? {} : { retry: claimed.retry }),
      // Taken earlier and not finished (decision 745): the processor reads that refund instead of refunding again.
      ...(claimed.row.refund_code === null
        ? {}
        : { inProgressRefundCode: claimed.row.refund_code }),
    });
  } catch (error) {
    // The lease stays: the due work asks again, with the same key, once it runs out.
    ctx.logger.error(
      { nullification: claimed.row.id, err: error },
      'refund dispatch failed; will retry',
    );
    return;
  }
  await recordRefundAnswer(ctx, claimed.row.id, outcome);
}

/** Dispatches one nullification now if it waits for the processor (right after the command's commit). */
export async function dispatchNullification(ctx: AppContext, id: string): Promise<void> {
  const claimed = await inTransaction(ctx.db, async (tx) =>
    claim(ctx, tx, await lockNullification(tx, id)),
  );
  if (claimed !== null && claimed !== 'unresolved' && claimed !== 'waiting')
    await ask(ctx, claimed);
}

/** Due work: every collected refund whose dispatch is due (never sent, or its lease ran out). */
export async function runRefundDispatch(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  let processed = 0;
  while (processed < scope.limit) {
    const claimed = await inTransaction(ctx.db, async (tx) => {
      let q = tx
        .selectFrom('nullifications')
        .selectAll()
        .where('status', '=', 'complete')
        .where('dispatch_due_at', '<=', ctx.clock.now());
      if (scope.accountId !== undefined) q = q.where('account_id', '=', scope.accountId);
      return claim(
        ctx,
        tx,
        await q.orderBy('dispatch_due_at').limit(1).forUpdate().skipLocked().executeTakeFirst(),
      );
    });
    if (claimed === null) break;
    if (claimed !== 'unresolved' && claimed !== 'waiting') await ask(ctx, claimed);
    processed++;
  }
  return processed;
}

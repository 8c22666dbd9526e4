// The one function that moves a payout between states, with the money and the notification each move implies:
// paid = reserved -> bank clearing; rejected = reserved -> back to available, with an income movement. A bank
// refund's payout moves refund clearing instead, and its refund follows (decision 112).
import assert from 'node:assert/strict';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { journalKinds, ledgerCodes, SYSTEM_OWNER } from '../../platform/ledger/ledger.ts';
import { enqueueCallback } from '../../platform/notifications/enqueue.ts';
import { formatTimestamp } from '../../platform/time-format.ts';
import { appendWalletMovement } from './movements.ts';
import { assertTransition, outcomeOf, type PayoutOutcome, type PayoutStatus, type WalletPayoutKind } from './payout-states.ts';
import { followRefundPayout } from '../refunds/bank-payout-result.ts';
import { markMovementReversed, type PayoutRow } from './repository.ts';

export interface TransitionOptions {
  /** Account time of the move. */
  readonly at: Date;
  readonly reason?: string;
  /** Next time-driven move, if any. */
  readonly dueAt?: Date | null;
}

const paidJournalKinds = { payout: journalKinds.payoutPaid, withdrawal: journalKinds.withdrawalPaid } as const satisfies Record<WalletPayoutKind, string>;
const releasedJournalKinds = { payout: journalKinds.payoutReleased, withdrawal: journalKinds.withdrawalReleased } as const satisfies Record<WalletPayoutKind, string>;

/** The seed's payout notification (Events): sent to url_notify when a payout is resolved. */
export function payoutNotification(ctx: AppContext, p: PayoutRow): Record<string, unknown> {
  return {
    id: p.id,
    identifier_payout: p.id,
    order: p.order,
    status: p.status,
    update_at: formatTimestamp(p.updated_at, ctx.config.timeZone),
    customer: { name: p.accountbank_name, phone: p.phone, document: p.accountbank_rut, number: p.accountbank_num },
  };
}

/** A payout or withdrawal: paid = reserved -> bank clearing; rejected = reserved -> available, with an income movement. */
async function walletPayoutMoney(ctx: AppContext, tx: Tx, payout: PayoutRow & { kind: WalletPayoutKind }, outcome: PayoutOutcome, at: Date): Promise<void> {
  const amountMinor = BigInt(payout.amount_minor);
  const owner = payout.account_id;
  const currency = payout.currency;
  if (outcome === 'paid') {
    await ctx.ledger.post(tx, {
      kind: paidJournalKinds[payout.kind],
      reference: payout.id,
      at,
      postings: [
        { owner, code: ledgerCodes.walletReserved, currency, amountMinor: -amountMinor },
        { owner: SYSTEM_OWNER, code: ledgerCodes.bankClearing, currency, amountMinor },
      ],
    });
  } else if (outcome === 'rejected') {
    const journal = await ctx.ledger.release(tx, { kind: releasedJournalKinds[payout.kind], reference: payout.id, at, owner, currency, amountMinor });
    await appendWalletMovement(tx, {
      accountId: owner, currency, order: payout.order, subject: payout.subject,
      kind: `${payout.kind}_reversal`, reference: payout.id, originLiquidation: null, journal, at,
    });
    if (payout.movement_id !== null) await markMovementReversed(tx, payout.movement_id);
  }
}

/**
 * A bank refund's payout (decision 112) reserved nothing: paid = refund clearing -> bank clearing. Either way its
 * refund follows in this transaction (paid: `reverse_completed`; rejected: back to `waiting_bank_details`).
 */
async function refundPayoutMoney(ctx: AppContext, tx: Tx, payout: PayoutRow, outcome: PayoutOutcome, at: Date): Promise<void> {
  if (outcome === 'open') return;
  if (outcome === 'paid') {
    const amountMinor = BigInt(payout.amount_minor);
    await ctx.ledger.post(tx, {
      kind: journalKinds.refundPaidOut, reference: payout.id, at,
      postings: [
        { owner: SYSTEM_OWNER, code: ledgerCodes.refundClearing, currency: payout.currency, amountMinor: -amountMinor },
        { owner: SYSTEM_OWNER, code: ledgerCodes.bankClearing, currency: payout.currency, amountMinor },
      ],
    });
  }
  await followRefundPayout(ctx, tx, payout, outcome === 'paid', at);
}

/** The caller holds the payout's row lock (lockPayout, or the row it inserted in this transaction). */
export async function transitionPayout(ctx: AppContext, tx: Tx, payout: PayoutRow, to: PayoutStatus, options: TransitionOptions): Promise<PayoutRow> {
  assertTransition(payout.status, to);
  const outcome = outcomeOf(to);
  const updated = await tx.updateTable('payouts')
    .set({
      status: to,
      updated_at: options.at,
      due_at: outcome === 'open' ? (options.dueAt ?? null) : null,
      ...(outcome === 'rejected' ? { reason_rejection: options.reason ?? '' } : {}),
    })
    .where('id', '=', payout.id).where('status', '=', payout.status)
    .returningAll()
    .executeTakeFirst();
  assert.ok(updated !== undefined, `payout ${payout.id} changed under a held lock`);
  if (payout.kind === 'refund') await refundPayoutMoney(ctx, tx, updated, outcome, options.at);
  else await walletPayoutMoney(ctx, tx, { ...payout, kind: payout.kind }, outcome, options.at);
  if (outcome !== 'open' && updated.url_notify !== null) {
    await enqueueCallback(tx, {
      accountId: payout.account_id,
      url: updated.url_notify,
      eventType: 'payout.result',
      payload: payoutNotification(ctx, updated),
      // Service time, not account time: the outbox is due now under either clock.
      at: ctx.clock.now(),
    });
  }
  return updated;
}

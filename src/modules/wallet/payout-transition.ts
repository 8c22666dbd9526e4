// The one function that moves a payout between states, with the money and the notification each move implies:
// paid = reserved -> bank clearing; rejected = reserved -> back to available, with an income movement. A bank
// refund's payout moves refund clearing instead, and its refund follows (decision 112).
import assert from 'node:assert/strict';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import {
  journalKinds,
  ledgerCodes,
  releaseJournal,
  SYSTEM_OWNER,
  type JournalInput,
} from '../../platform/ledger/ledger.ts';
import { enqueueCallback } from '../../platform/notifications/enqueue.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import { collectDisputeDebt, lockOwedDebt } from './debt-collection.ts';
import { appendWalletMovement } from './movements.ts';
import {
  assertTransition,
  outcomeOf,
  type PayoutOutcome,
  type PayoutStatus,
  type WalletPayoutKind,
} from './payout-states.ts';
import { markMovementReversed, type PayoutRow } from './repository.ts';

/**
 * The port through which a bank refund's payout, once resolved, moves its refund (decision 112): implemented by the
 * refunds module (refunds/bank-payout-result.ts) and wired by the composition root as ctx.refundPayouts, so the
 * wallet imports nothing of refunds, which asks the wallet for its payouts (decision 470).
 */
export interface RefundPayoutFollower {
  /** Called in the payout's transaction, which holds its lock: `paid` or rejected by the bank. */
  follow(
    ctx: AppContext,
    tx: Tx,
    payout: { readonly id: string },
    paid: boolean,
    at: Date,
  ): Promise<void>;
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** Built once by the composition (src/runtime.ts): the refunds module's follower of refund payouts. */
    readonly refundPayouts: RefundPayoutFollower;
  }
}

export interface TransitionOptions {
  /** Account time of the move. */
  readonly at: Date;
  readonly reason?: string;
  /** Next time-driven move, if any. */
  readonly dueAt?: Date | null;
}

const paidJournalKinds = {
  payout: journalKinds.payoutPaid,
  withdrawal: journalKinds.withdrawalPaid,
} as const satisfies Record<WalletPayoutKind, string>;
const releasedJournalKinds = {
  payout: journalKinds.payoutReleased,
  withdrawal: journalKinds.withdrawalReleased,
} as const satisfies Record<WalletPayoutKind, string>;
const returnedJournalKinds = {
  payout: journalKinds.payoutReturned,
  withdrawal: journalKinds.withdrawalReturned,
} as const satisfies Record<WalletPayoutKind, string>;

/** A paid payout the bank sent back (decision 830): its money leaves bank clearing for the available wallet. */
function returnedJournal(payout: PayoutRow & { kind: WalletPayoutKind }, at: Date): JournalInput {
  const amountMinor = BigInt(payout.amount_minor);
  const { account_id: owner, currency } = payout;
  return {
    kind: returnedJournalKinds[payout.kind],
    reference: payout.id,
    at,
    postings: [
      { owner: SYSTEM_OWNER, code: ledgerCodes.bankClearing, currency, amountMinor: -amountMinor },
      { owner, code: ledgerCodes.walletAvailable, currency, amountMinor },
    ],
  };
}

/** The seed's payout notification (Events): sent to url_notify when a payout is resolved. */
function payoutNotification(ctx: AppContext, p: PayoutRow): Record<string, unknown> {
  return {
    id: p.id,
    identifier_payout: p.id,
    order: p.order,
    status: p.status,
    update_at: formatTimestamp(p.updated_at, ctx.config.timeZone),
    customer: {
      name: p.accountbank_name,
      phone: p.phone,
      document: p.accountbank_rut,
      number: p.accountbank_num,
    },
  };
}

/**
 * The journal a wallet payout's outcome posts: paid = reserved -> bank clearing; rejected = reserved -> available
 * (followed by an income movement); none while it stays open. Creation posts it in the reservation's own
 * statement when the sandbox resolves the payout at once (payout-create.ts).
 */
export function walletOutcomeJournal(
  payout: {
    readonly id: string;
    readonly kind: WalletPayoutKind;
    readonly account_id: string;
    readonly currency: string;
    readonly amountMinor: bigint;
  },
  outcome: PayoutOutcome,
  at: Date,
): JournalInput | null {
  const { amountMinor, account_id: owner, currency } = payout;
  if (outcome === 'paid') {
    return {
      kind: paidJournalKinds[payout.kind],
      reference: payout.id,
      at,
      postings: [
        { owner, code: ledgerCodes.walletReserved, currency, amountMinor: -amountMinor },
        { owner: SYSTEM_OWNER, code: ledgerCodes.bankClearing, currency, amountMinor },
      ],
    };
  }
  if (outcome === 'rejected')
    return releaseJournal({
      kind: releasedJournalKinds[payout.kind],
      reference: payout.id,
      at,
      owner,
      currency,
      amountMinor,
    });
  return null;
}

/** The kind of the income movement a rejected payout or withdrawal leaves. */
export function reversalMovementKind(kind: WalletPayoutKind): string {
  return `${kind}_reversal`;
}

/**
 * A payout or withdrawal: paid = reserved -> bank clearing; rejected = reserved -> available (or, returned after it
 * was paid, bank clearing -> available), with an income movement, then the chargeback debt it pays (decision 905).
 */
async function walletPayoutMoney(
  ctx: AppContext,
  tx: Tx,
  payout: PayoutRow & { kind: WalletPayoutKind },
  outcome: PayoutOutcome,
  at: Date,
): Promise<void> {
  // From `success` the money already left the reserve for bank clearing: a return brings it back from there.
  const journal =
    payout.status === 'success'
      ? returnedJournal(payout, at)
      : walletOutcomeJournal({ ...payout, amountMinor: BigInt(payout.amount_minor) }, outcome, at);
  if (journal === null) return;
  // Money given back to the available wallet pays the chargeback debt first (decision 905), as a settlement does
  // (decision 560): the debt is locked before the journal, as `dispute_debt` sorts first in the ledger's lock order.
  const owedMinor =
    outcome === 'rejected' ? await lockOwedDebt(ctx, tx, payout.account_id, payout.currency) : 0n;
  const posted = await ctx.ledger.post(tx, journal);
  if (outcome === 'rejected') {
    await appendWalletMovement(tx, {
      accountId: payout.account_id,
      currency: payout.currency,
      order: payout.order,
      subject: payout.subject,
      kind: reversalMovementKind(payout.kind),
      reference: payout.id,
      originLiquidation: null,
      journal: posted,
      at,
    });
    if (payout.movement_id !== null) await markMovementReversed(tx, payout.movement_id);
    await collectDisputeDebt(ctx, tx, {
      accountId: payout.account_id,
      currency: payout.currency,
      owedMinor,
      creditedMinor: BigInt(payout.amount_minor),
      reference: payout.id,
      originLiquidation: null,
      order: payout.order,
      at,
    });
  }
}

/**
 * A bank refund's payout (decision 112) reserved nothing: paid = refund clearing -> bank clearing. Either way its
 * refund follows in this transaction (paid: `reverse_completed`; rejected: back to `waiting_bank_details`).
 */
async function refundPayoutMoney(
  ctx: AppContext,
  tx: Tx,
  payout: PayoutRow,
  outcome: PayoutOutcome,
  at: Date,
): Promise<void> {
  if (outcome === 'open') return;
  if (outcome === 'paid') {
    const amountMinor = BigInt(payout.amount_minor);
    await ctx.ledger.post(tx, {
      kind: journalKinds.refundPaidOut,
      reference: payout.id,
      at,
      postings: [
        {
          owner: SYSTEM_OWNER,
          code: ledgerCodes.refundClearing,
          currency: payout.currency,
          amountMinor: -amountMinor,
        },
        {
          owner: SYSTEM_OWNER,
          code: ledgerCodes.bankClearing,
          currency: payout.currency,
          amountMinor,
        },
      ],
    });
  }
  await ctx.refundPayouts.follow(ctx, tx, payout, outcome === 'paid', at);
}

/** A resolved payout's notification, into the outbox in the resolving transaction (sent after commit). */
export async function enqueuePayoutResult(
  ctx: AppContext,
  tx: Tx,
  payout: PayoutRow,
): Promise<void> {
  if (payout.url_notify === null) return;
  await enqueueCallback(tx, {
    accountId: payout.account_id,
    url: payout.url_notify,
    eventType: 'payout.result',
    payload: payoutNotification(ctx, payout),
    // The account's time (docs/callbacks.md: one clock for all of a callback's times), as the payout's row has it
    // for the move just written: no second read of the sandbox clock on a payout's path (statements-per-request).
    at: payout.updated_at,
  });
}

/** The caller holds the payout's row lock (lockPayout, or the row it inserted in this transaction). */
export async function transitionPayout(
  ctx: AppContext,
  tx: Tx,
  payout: PayoutRow,
  to: PayoutStatus,
  options: TransitionOptions,
): Promise<PayoutRow> {
  assertTransition(payout.status, to);
  // A bank refund's payout is never returned after it was paid: its refund has completed (decision 830).
  assert.ok(
    payout.kind !== 'refund' || payout.status !== 'success',
    'a paid refund payout stays paid',
  );
  const outcome = outcomeOf(to);
  const updated = await tx
    .updateTable('payouts')
    .set({
      status: to,
      updated_at: options.at,
      due_at: outcome === 'open' ? (options.dueAt ?? null) : null,
      ...(outcome === 'rejected' ? { reason_rejection: options.reason ?? '' } : {}),
    })
    .where('id', '=', payout.id)
    .where('status', '=', payout.status)
    .returningAll()
    .executeTakeFirst();
  assert.ok(updated !== undefined, `payout ${payout.id} changed under a held lock`);
  if (payout.kind === 'refund') await refundPayoutMoney(ctx, tx, updated, outcome, options.at);
  else await walletPayoutMoney(ctx, tx, { ...payout, kind: payout.kind }, outcome, options.at);
  if (outcome !== 'open') await enqueuePayoutResult(ctx, tx, updated);
  return updated;
}

// What a payout will write, decided before any lock (payout-create.ts takes the lock and writes it): its request,
// its id, time and sandbox outcome, its row, the reservation it asks of the ledger and the wallet movements its
// statement records.
import type { AppContext } from '../../platform/context.ts';
import { ruleFailure, type RuleFailure } from '../../platform/errors/errors.ts';
import { newId } from '../../platform/ids/ids.ts';
import {
  journalKinds,
  reservationJournal,
  type LedgerKey,
  type PostedJournal,
  type Reservation,
} from '../../platform/ledger/ledger.ts';
import { newMovementId, type GatedMovement, type GateMovements } from './movements.ts';
import {
  assertTransition,
  outcomeOf,
  sandboxImmediateOutcome,
  sandboxRejectionReason,
  type WalletPayoutKind,
} from './payout-states.ts';
import { reversalMovementKind, walletOutcomeJournal } from './payout-transition.ts';
import type { PayoutRow } from './repository.ts';
import type { NewPayoutRow } from './payout-statement.ts';
import { limits } from '../../limits/index.ts';

const reservedJournalKinds = {
  payout: journalKinds.payoutReserved,
  withdrawal: journalKinds.withdrawalReserved,
} as const satisfies Record<WalletPayoutKind, string>;

export interface PayoutDestination {
  readonly email: string;
  readonly phone: string;
  readonly accountbankName: string;
  readonly accountbankRut: string;
  readonly accountbankSbif: string;
  readonly accountbankType: '1' | '2' | '3';
  readonly accountbankNum: string;
}

export interface PayoutRequest {
  readonly kind: WalletPayoutKind;
  readonly accountId: string;
  readonly order: string;
  readonly orderExt: string | null;
  readonly subject: string;
  readonly currency: string;
  readonly amountMinor: bigint;
  readonly destination: PayoutDestination;
  readonly urlNotify: string | null;
  readonly additionalParameters: string | null;
  /** Fingerprint of the request body; the same order with another body is a duplicate. */
  readonly requestHash: string;
}

export type CreateOutcome =
  | {
      readonly ok: true;
      readonly payoutId: string;
      readonly movementId: string;
      readonly replayed: boolean;
    }
  | { readonly ok: false; readonly failure: RuleFailure };

export function answerForExisting(existing: PayoutRow, request: PayoutRequest): CreateOutcome {
  if (existing.request_hash !== request.requestHash || existing.movement_id === null) {
    return { ok: false, failure: ruleFailure('duplicate_order', { order: request.order }) };
  }
  return { ok: true, payoutId: existing.id, movementId: existing.movement_id, replayed: true };
}

/** A payout decided before any lock: its id, time, sandbox outcome and row. */
export interface PlannedPayout {
  readonly request: PayoutRequest;
  readonly id: string;
  readonly at: Date;
  readonly outcome: ReturnType<typeof outcomeOf>;
  readonly then: ReturnType<typeof walletOutcomeJournal>;
  readonly movementId: string;
  readonly row: NewPayoutRow;
}

export function planPayout(ctx: AppContext, request: PayoutRequest, at: Date): PlannedPayout {
  const sandbox = ctx.config.mode === 'sandbox';
  const owner = request.accountId;
  const currency = request.currency;
  const id = newId('mor', 17);
  // The sandbox resolves its fixed amounts at once: the row is written in its final state, with the outcome's
  // journal (and a rejection's income movement) in the same statement, as transitionPayout would have moved it.
  const immediate =
    sandbox && request.kind === 'payout' ? sandboxImmediateOutcome(request.amountMinor) : null;
  if (immediate !== null) assertTransition('pending', immediate);
  const outcome = immediate === null ? 'open' : outcomeOf(immediate);
  const then = walletOutcomeJournal(
    { id, kind: request.kind, account_id: owner, currency, amountMinor: request.amountMinor },
    outcome,
    at,
  );
  const d = request.destination;
  const movementId = newMovementId();
  const row = {
    id,
    account_id: owner,
    kind: request.kind,
    order: request.order,
    order_ext: request.orderExt,
    request_hash: request.requestHash,
    currency,
    amount_minor: request.amountMinor,
    email: d.email,
    phone: d.phone,
    subject: request.subject,
    accountbank_name: d.accountbankName,
    accountbank_rut: d.accountbankRut,
    accountbank_sbif: d.accountbankSbif,
    accountbank_type: d.accountbankType,
    accountbank_num: d.accountbankNum,
    url_notify: request.urlNotify,
    additional_parameters: request.additionalParameters,
    status: immediate ?? 'pending',
    reason_rejection: outcome === 'rejected' ? sandboxRejectionReason : '',
    movement_id: movementId,
    due_at:
      sandbox && immediate === null
        ? new Date(at.getTime() + limits.sandboxPayoutProcessingAfterMs)
        : null,
    created_at: at,
    updated_at: at,
  } as const;
  return { request, id, at, outcome, then, movementId, row };
}

/** What a planned payout reserves (its amount from its wallet's available balance to its reserved one), and its immediate outcome's journal. */
export function reservationOf(p: PlannedPayout): Reservation {
  const { request } = p;
  return {
    move: {
      kind: reservedJournalKinds[request.kind],
      reference: p.id,
      at: p.at,
      owner: request.accountId,
      currency: request.currency,
      amountMinor: request.amountMinor,
    },
    then: p.then === null ? [] : [p.then],
  };
}

/** The wallet movements a planned payout's statement writes: its reservation's, and a rejection's reversal. */
export function movementsOf(
  p: PlannedPayout,
  [reservation, result]: readonly PostedJournal[],
): GateMovements {
  const { request, outcome, movementId } = p;
  const movements: GatedMovement[] = [
    {
      id: movementId,
      kind: request.kind,
      journal: reservation!,
      status: outcome === 'rejected' ? 'reversed' : 'current',
    },
  ];
  if (outcome === 'rejected')
    movements.push({
      id: newMovementId(),
      kind: reversalMovementKind(request.kind),
      journal: result!,
      status: 'current',
    });
  return { rowId: p.id, accountId: request.accountId, currency: request.currency, movements };
}

/** The accounts a planned payout's statement posts to: its reservation's, and its immediate outcome's. */
export function accountsOf(p: PlannedPayout): readonly LedgerKey[] {
  return [
    ...reservationJournal(reservationOf(p).move).postings,
    ...(p.then === null ? [] : p.then.postings),
  ];
}

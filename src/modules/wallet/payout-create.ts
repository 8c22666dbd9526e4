// Creating a payout or a withdrawal: reserve the amount under the wallet's row lock (so concurrent requests can
// never overdraw), record the payout, and in the sandbox resolve the seed's fixed amounts at once. The funds check
// takes the lock and one more statement writes it all (Ledger.reserveWith): every read and decision that needs no
// lock comes before them, and the commit right after.
import type { AppContext } from '../../platform/context.ts';
import { ruleFailure, type RuleFailure } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { journalKinds } from '../../platform/ledger/ledger.ts';
import { accountNowFromOffset } from '../../platform/sandbox-clock.ts';
import { movementsOfGateSql, newMovementId, type GatedMovement } from './movements.ts';
import { assertTransition, outcomeOf, sandboxImmediateOutcome, sandboxRejectionReason, type WalletPayoutKind } from './payout-states.ts';
import { enqueuePayoutResult, reversalMovementKind, walletOutcomeJournal } from './payout-transition.ts';
import { findPayoutByOrder, findPayoutByOrderWithOffset, insertPayoutQuery, type PayoutRow } from './repository.ts';
import { KeyedGate } from '../../platform/keyed-gate.ts';
import { inTransactionOrJoin } from '../../platform/db/unit-of-work.ts';
import { limits } from '../../limits.ts';

const reservedJournalKinds = { payout: journalKinds.payoutReserved, withdrawal: journalKinds.withdrawalReserved } as const satisfies Record<WalletPayoutKind, string>;

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
  | { readonly ok: true; readonly payoutId: string; readonly movementId: string; readonly replayed: boolean }
  | { readonly ok: false; readonly failure: RuleFailure };

function answerForExisting(existing: PayoutRow, request: PayoutRequest): CreateOutcome {
  if (existing.request_hash !== request.requestHash || existing.movement_id === null) {
    return { ok: false, failure: ruleFailure('duplicate_order', { order: request.order }) };
  }
  return { ok: true, payoutId: existing.id, movementId: existing.movement_id, replayed: true };
}

/** Payouts and withdrawals of one wallet (account and currency) reach its row lock one at a time per process. */
const walletGate = new KeyedGate();

/**
 * Order of the answers (pinned by the tests): a committed order answers first (a retry never queues behind the
 * wallet's lock); under the lock, an order taken answers before a shortfall, and a shortfall before an order
 * being taken at the same moment in another currency (its own wallet lock), whose winner answers once it commits.
 * A refusal writes nothing but the wallet's empty accounts the funds check may have created, so no savepoint
 * is needed to undo it.
 */
export async function createPayout(ctx: AppContext, request: PayoutRequest): Promise<CreateOutcome> {
  const sandbox = ctx.config.mode === 'sandbox';
  const { payout: committed, offsetMs } = sandbox
    ? await findPayoutByOrderWithOffset(ctx.db, request.accountId, request.kind, request.order)
    : { payout: await findPayoutByOrder(ctx.db, request.accountId, request.kind, request.order), offsetMs: 0 };
  if (committed !== undefined) return answerForExisting(committed, request);
  const owner = request.accountId;
  const currency = request.currency;
  const at = accountNowFromOffset(ctx, offsetMs);
  const id = newId('mor', 17);
  // The sandbox resolves its fixed amounts at once: the row is written in its final state, with the outcome's
  // journal (and a rejection's income movement) in the same statement, as transitionPayout would have moved it.
  const immediate = sandbox && request.kind === 'payout' ? sandboxImmediateOutcome(request.amountMinor) : null;
  if (immediate !== null) assertTransition('pending', immediate);
  const outcome = immediate === null ? 'open' : outcomeOf(immediate);
  const then = walletOutcomeJournal({ id, kind: request.kind, account_id: owner, currency, amountMinor: request.amountMinor }, outcome, at);
  const d = request.destination;
  const movementId = newMovementId();
  const row = {
    id, account_id: owner, kind: request.kind, order: request.order, order_ext: request.orderExt,
    request_hash: request.requestHash, currency, amount_minor: request.amountMinor,
    email: d.email, phone: d.phone, subject: request.subject,
    accountbank_name: d.accountbankName, accountbank_rut: d.accountbankRut, accountbank_sbif: d.accountbankSbif,
    accountbank_type: d.accountbankType, accountbank_num: d.accountbankNum,
    url_notify: request.urlNotify, additional_parameters: request.additionalParameters,
    status: immediate ?? 'pending', reason_rejection: outcome === 'rejected' ? sandboxRejectionReason : '', movement_id: movementId,
    due_at: sandbox && immediate === null ? new Date(at.getTime() + limits.sandboxPayoutProcessingAfterMs) : null,
    created_at: at, updated_at: at,
  } as const;
  // Released when the command's work is done, before the runner's COMMIT: the next payout of this wallet then
  // waits on the row lock alone and takes it as soon as this one commits.
  return walletGate.run(`${owner}/${currency}`, () => inTransactionOrJoin(ctx.db, async (tx) => {
    const reserved = await ctx.ledger.reserveWith<PayoutRow>(tx, {
      kind: reservedJournalKinds[request.kind], reference: id, at, owner, currency, amountMinor: request.amountMinor,
    }, {
      then: then === null ? [] : [then],
      write: ([reservation, result]) => {
        const movements: GatedMovement[] = [{ id: movementId, kind: request.kind, journal: reservation!, status: outcome === 'rejected' ? 'reversed' : 'current' }];
        if (outcome === 'rejected') movements.push({ id: newMovementId(), kind: reversalMovementKind(request.kind), journal: result!, status: 'current' });
        return { insert: insertPayoutQuery(tx, row), follow: [movementsOfGateSql({ accountId: owner, currency }, movements)] };
      },
    });
    if (!reserved.ok) {
      // Still under the wallet's lock: an order committed while this request waited for it answers first.
      const existing = await findPayoutByOrder(tx, owner, request.kind, request.order);
      if (existing !== undefined) return answerForExisting(existing, request);
      return { ok: false, failure: ruleFailure('insufficient_funds', { availableMinor: reserved.availableMinor, currency, requestedMinor: request.amountMinor }) };
    }
    if (reserved.row === undefined) {
      // The order was taken by a request that committed while this one's insert waited: the whole statement wrote
      // nothing, and the winner decides the answer.
      const winner = await findPayoutByOrder(tx, owner, request.kind, request.order);
      if (winner === undefined) throw new Error(`order ${request.order} conflicted but no payout holds it`);
      return answerForExisting(winner, request);
    }
    if (outcome !== 'open') await enqueuePayoutResult(ctx, tx, reserved.row);
    return { ok: true, payoutId: id, movementId, replayed: false } as const;
  }));
}

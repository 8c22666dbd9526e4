// Creating a payout or a withdrawal: reserve the amount under the wallet's row lock (so concurrent requests can
// never overdraw), record the payout, and in the sandbox resolve the seed's fixed amounts at once.
import type { AppContext } from '../../platform/context.ts';
import { ruleFailure, type RuleFailure } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { journalKinds } from '../../platform/ledger/ledger.ts';
import { accountNow } from '../../platform/sandbox-clock.ts';
import { appendWalletMovement, newMovementId } from './movements.ts';
import { sandboxImmediateOutcome, sandboxRejectionReason, type WalletPayoutKind } from './payout-states.ts';

const reservedJournalKinds = { payout: journalKinds.payoutReserved, withdrawal: journalKinds.withdrawalReserved } as const satisfies Record<WalletPayoutKind, string>;
import { transitionPayout } from './payout-transition.ts';
import { findPayoutByOrder, insertPayout, type PayoutRow } from './repository.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { limits } from '../../limits.ts';

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

/** Thrown inside the transaction to roll it back: a refused request writes nothing. */
class Abort extends Error {
  readonly outcome: CreateOutcome | 'order_taken';
  constructor(outcome: CreateOutcome | 'order_taken') {
    super('aborted');
    this.outcome = outcome;
  }
}

function answerForExisting(existing: PayoutRow, request: PayoutRequest): CreateOutcome {
  if (existing.request_hash !== request.requestHash || existing.movement_id === null) {
    return { ok: false, failure: ruleFailure('duplicate_order', { order: request.order }) };
  }
  return { ok: true, payoutId: existing.id, movementId: existing.movement_id, replayed: true };
}

export async function createPayout(ctx: AppContext, request: PayoutRequest): Promise<CreateOutcome> {
  // A retry of a committed order is answered without queueing behind the wallet's lock.
  const committed = await findPayoutByOrder(ctx.db, request.accountId, request.kind, request.order);
  if (committed !== undefined) return answerForExisting(committed, request);
  try {
    return await inTransaction(ctx.db, async (tx) => {
      const owner = request.accountId;
      const currency = request.currency;
      const at = await accountNow(ctx, owner, tx);
      const id = newId('mor', 17);
      // The reservation locks the wallet's row first: it serialises every payout of this account and currency, so
      // the order check below and the funds check cannot interleave with another request's. A duplicate order
      // answers before a shortfall, and either way the transaction rolls back.
      const reserved = await ctx.ledger.reserve(tx, { kind: reservedJournalKinds[request.kind], reference: id, at, owner, currency, amountMinor: request.amountMinor });
      const existing = await findPayoutByOrder(tx, owner, request.kind, request.order);
      if (existing !== undefined) throw new Abort(answerForExisting(existing, request));
      // Reserved before the payout row is written, so a shortfall answers before an order taken in another currency.
      if (!reserved.ok) {
        throw new Abort({ ok: false, failure: ruleFailure('insufficient_funds', { availableMinor: reserved.availableMinor, currency, requestedMinor: request.amountMinor }) });
      }
      const journal = reserved.journal;
      const sandbox = ctx.config.mode === 'sandbox';
      const immediate = sandbox && request.kind === 'payout' ? sandboxImmediateOutcome(request.amountMinor) : null;
      const d = request.destination;
      const movementId = newMovementId();
      const inserted = await insertPayout(tx, {
        id, account_id: owner, kind: request.kind, order: request.order, order_ext: request.orderExt,
        request_hash: request.requestHash, currency, amount_minor: request.amountMinor,
        email: d.email, phone: d.phone, subject: request.subject,
        accountbank_name: d.accountbankName, accountbank_rut: d.accountbankRut, accountbank_sbif: d.accountbankSbif,
        accountbank_type: d.accountbankType, accountbank_num: d.accountbankNum,
        url_notify: request.urlNotify, additional_parameters: request.additionalParameters,
        status: 'pending', reason_rejection: '', movement_id: movementId,
        due_at: sandbox && immediate === null ? new Date(at.getTime() + limits.sandboxPayoutProcessingAfterMs) : null,
        created_at: at, updated_at: at,
      });
      // Same order in another currency committed first: its row decides the answer, read after rollback.
      if (inserted === undefined) throw new Abort('order_taken');
      const movement = await appendWalletMovement(tx, {
        id: movementId, accountId: owner, currency, order: request.order, subject: request.subject,
        kind: request.kind, reference: id, originLiquidation: null, journal, at,
      });
      // The row this transaction just inserted is locked by it: the sandbox's immediate outcome moves it on.
      if (immediate !== null) await transitionPayout(ctx, tx, inserted, immediate, { at, reason: sandboxRejectionReason });
      return { ok: true as const, payoutId: id, movementId: movement.id, replayed: false };
    });
  } catch (error) {
    if (!(error instanceof Abort)) throw error;
    if (error.outcome !== 'order_taken') return error.outcome;
    const winner = await findPayoutByOrder(ctx.db, request.accountId, request.kind, request.order);
    if (winner === undefined) throw new Error(`order ${request.order} conflicted but no payout holds it`);
    return answerForExisting(winner, request);
  }
}

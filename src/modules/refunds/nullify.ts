// POST /api/nullification as a command (reference §3.1, docs/refunds.md): under the transaction's row lock, check
// what is left to refund, collect the merchant's part (this sale's unsettled net, then the available wallet) and
// the fee's part (decision 110) into refund clearing, record the nullification `complete` (or `awaiting_funds`
// with what there was, the rest from the next settlements: collection.ts) and move the transaction to
// `refunded partial` or `refunded`, in one commit. The processor is asked afterwards (dispatch.ts).
import type { AppContext } from '../../platform/context.ts';
import { notFound, ruleFailure, type RuleFailure } from '../../platform/errors/errors.ts';
import { newId } from '../../platform/ids/ids.ts';
import {
  journalKinds,
  ledgerCodes,
  pendingThenWallet,
  SYSTEM_OWNER,
  type FundsSource,
  type LedgerKey,
} from '../../platform/ledger/ledger.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import { isStorableText } from '../../platform/http/input-guards.ts';
import {
  extensionOf,
  heldFundsOf,
  type Reversal,
  type Reversed,
} from '../transactions/extension.ts';
import {
  findAccountTransaction,
  lockTransaction,
  type TransactionRow,
} from '../transactions/repository.ts';
import { appendWalletMovement } from '../wallet/movements.ts';
import { openDisputedMinor } from '../disputes/repository.ts';
import { feeBackMinor } from './fee-back.ts';
import { notifyNullification } from './transition.ts';
import { insertNullification, markRefunded, returnFee } from './nullification-record.ts';
import { standingRefunds } from './repository.ts';
import { unresolvedCondition } from './unresolved.ts';
import './types.ts';

export interface NullificationInput {
  readonly id: string;
  /** Minor units: the API's JSON number, or a payment's own amount (a subscription charge refunded, decision 910). */
  readonly amount: number | bigint;
  readonly subject: string;
}

export type Registered =
  | { readonly ok: true; readonly nullificationId: string }
  | { readonly ok: false; readonly failure: RuleFailure };

async function refusal(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  amountMinor: bigint,
): Promise<RuleFailure | null> {
  if (row.status === 'refunded') return ruleFailure('already_refunded', { id: row.id });
  if (row.status !== 'success' && row.status !== 'refunded partial')
    return ruleFailure('transaction_not_paid', { id: row.id, status: row.status });
  // An earlier refund left unresolved (decisions 785, 996, 989) was perhaps applied at the processor for an amount
  // Cobro does not know: another refund of the sale would be sent blind and, its answer lost, could not be
  // reconciled. It waits for the operator's `cobro refunds resolve`, and the merchant is told so (decision 1011).
  const unresolved = await tx
    .selectFrom('nullifications')
    .select('id')
    .where('transaction_id', '=', row.id)
    .where(unresolvedCondition)
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  if (unresolved !== undefined)
    return ruleFailure('earlier_refund_unresolved', { id: row.id, refundId: unresolved.id });
  // What open disputes hold of the sale is not the merchant's to refund (decision 530).
  const leftMinor =
    BigInt(row.amount_minor) - BigInt(row.refunded_minor) - (await openDisputedMinor(tx, row.id));
  if (amountMinor > leftMinor)
    return ruleFailure('refund_exceeds_paid', {
      id: row.id,
      leftMinor,
      currency: row.currency,
      requestedMinor: amountMinor,
    });
  const extension = extensionOf(ctx, row);
  if (extension !== null && extension.reverse === undefined)
    return ruleFailure('refund_not_supported', {
      id: row.id,
      reason: `a ${extension.name} payment is not refundable yet`,
    });
  return null;
}

async function reverseSplit(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  reversal: Reversal,
): Promise<Reversed> {
  const reverse = extensionOf(ctx, row)?.reverse;
  if (reverse === undefined)
    return {
      ok: true,
      merchantMinor: reversal.amountMinor - reversal.feeBackMinor,
      splitMinor: 0n,
    };
  return reverse(ctx, tx, row, reversal);
}

/** One nullification collecting the merchant's part: of which sale, under which id and time, from where into where. */
interface Collecting {
  readonly accountId: string;
  readonly subject: string;
  readonly row: TransactionRow;
  readonly id: string;
  readonly at: Date;
  readonly sources: readonly FundsSource[];
  readonly clearing: LedgerKey;
  readonly held: Awaited<ReturnType<typeof heldFundsOf>>;
}

/**
 * The merchant's part into refund clearing, from `sources` in order (this sale's unsettled net or what an escrow
 * holds of it, then the available wallet), with the wallet movement the merchant sees. Returns what each gave.
 */
async function collectMerchantPart(
  ctx: AppContext,
  tx: Tx,
  merchantMinor: bigint,
  collecting: Collecting,
): Promise<{ readonly fromPending: bigint; readonly fromWallet: bigint }> {
  const { accountId, subject, row, id, at, sources, clearing, held } = collecting;
  if (merchantMinor <= 0n) return { fromPending: 0n, fromWallet: 0n };
  const take = (amountMinor: bigint) =>
    ctx.ledger.take(tx, {
      kind: journalKinds.refundCollected,
      reference: id,
      at,
      currency: row.currency,
      amountMinor,
      sources,
      to: clearing,
    });
  let taken = await take(merchantMinor);
  // Not covered: take what there is now; the rest comes from the next settlements (collection.ts).
  if (!taken.ok && taken.availableMinor > 0n) taken = await take(taken.availableMinor);
  if (!taken.ok) return { fromPending: 0n, fromWallet: 0n };
  const [fromPending, fromWallet] = [taken.partsMinor[0]!, taken.partsMinor[1]!];
  if (held !== null && fromPending > 0n) await held.hold.taken(ctx, tx, row, fromPending);
  if (fromWallet > 0n) {
    await appendWalletMovement(tx, {
      accountId,
      currency: row.currency,
      order: row.order,
      subject,
      kind: 'refund',
      reference: id,
      originLiquidation: row.id,
      journal: taken.journal,
      at,
    });
  }
  return { fromPending, fromWallet };
}

/**
 * The fee given back with a refund of `amountMinor`: by the refunds that stand, not the refunded total, which lost
 * disputes also count and a refusal lowers out of order (decision 975).
 */
async function feeBackOf(tx: Tx, row: TransactionRow, amountMinor: bigint): Promise<bigint> {
  const standing = await standingRefunds(tx, row.id);
  return feeBackMinor({
    grossMinor: BigInt(row.amount_minor),
    feeMinor: BigInt(row.fee_minor ?? 0n),
    refundedBeforeMinor: standing.refundedMinor,
    feeBackBeforeMinor: standing.feeBackMinor,
    amountMinor,
  });
}

export async function registerNullification(
  ctx: AppContext,
  accountId: string,
  input: NullificationInput,
): Promise<Registered> {
  return inTransaction(ctx.db, (tx) => register(ctx, tx, accountId, input));
}

/**
 * Registers a refund in the caller's transaction. `externalCode` marks a refund the merchant already made at the
 * acquirer (`cobro refunds record-external`, decision 1025): the same money, state and callback, never dispatched.
 */
export async function register(
  ctx: AppContext,
  tx: Tx,
  accountId: string,
  input: NullificationInput,
  externalCode?: string,
): Promise<Registered> {
  const found = isStorableText(input.id)
    ? await findAccountTransaction(tx, accountId, input.id)
    : undefined;
  // Business row first (decision 060): every refund of this sale queues here, so the ceiling holds under any race.
  const row = found === undefined ? undefined : await lockTransaction(tx, found.id);
  if (row === undefined) throw notFound('transaction');
  const amountMinor = BigInt(input.amount);
  const refused = await refusal(ctx, tx, row, amountMinor);
  if (refused !== null) return { ok: false, failure: refused };

  const at = await ctx.accountClock.now(accountId, tx);
  const id = newId('nul', 20);
  const grossMinor = BigInt(row.amount_minor);
  const feeMinor = BigInt(row.fee_minor ?? 0n);
  const feeBack = await feeBackOf(tx, row, amountMinor);
  // A settled sale an escrow account still holds pays from its held part instead (docs/escrow.md).
  const held = row.settled_at === null ? null : await heldFundsOf(ctx, tx, row);
  // A split sale's extension takes its clients' or beneficiaries' parts back first (decision 116).
  const split = await reverseSplit(ctx, tx, row, {
    amountMinor,
    feeBackMinor: feeBack,
    reference: id,
    at,
  });
  if (!split.ok) return split;
  const { merchantMinor, splitMinor } = split;
  const unsettledMinor =
    row.settled_at === null ? grossMinor - feeMinor - BigInt(row.refunded_pending_minor) : 0n;
  const clearing = {
    owner: SYSTEM_OWNER,
    code: ledgerCodes.refundClearing,
    currency: row.currency,
  };
  const [pending, wallet] = pendingThenWallet(accountId, row.currency, unsettledMinor);
  const sources = [held?.source ?? pending!, wallet!];
  const collecting = { accountId, subject: input.subject, row, id, at, sources, clearing, held };
  const { fromPending, fromWallet } = await collectMerchantPart(ctx, tx, merchantMinor, collecting);
  const collected = fromPending + fromWallet === merchantMinor;
  if (feeBack > 0n)
    await returnFee(ctx, tx, { reference: id, at, feeBackMinor: feeBack, clearing });
  const { inserted, status } = await insertNullification(tx, {
    id,
    accountId,
    row,
    subject: input.subject,
    amountMinor,
    collected,
    parts: { feeBack, fromPending, fromWallet, splitMinor },
    at,
    dispatchAt: ctx.clock.now(),
    ...(externalCode === undefined ? {} : { externalCode }),
  });
  // Its first recorded state is called back like every later one (transition.ts).
  await notifyNullification(ctx, tx, inserted);
  await markRefunded(tx, row, {
    amountMinor,
    pendingMinor: held === null ? fromPending : 0n,
    status,
    at,
  });
  return { ok: true, nullificationId: id };
}

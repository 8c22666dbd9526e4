// The port through which a transaction carries an extension (decision 070): a marketplace split, an event sale,
// and next a mall, escrow, a subscription or a refund. Transactions calls these seams at creation, on success and
// at settlement, and never imports an extension: the composition hands the list over as ctx.paymentExtensions
// (src/modules/payment-extensions.ts). A transaction names at most one extension (decision 042).
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import type { RuleFailure } from '../../platform/errors/errors.ts';
import {
  journalKinds,
  ledgerCodes,
  SYSTEM_OWNER,
  type FundsSource,
  type LedgerCode,
} from '../../platform/ledger/ledger.ts';
import type { TransactionRow } from './repository.ts';
import type { CreateTransactionInput } from './schemas.ts';

/**
 * How a transaction row names its extension (decision 550): the extension's `name` and what it names inside that
 * extension (a membership's id, an event's id). The core's table has these two columns and none per extension.
 */
export interface ExtensionColumns {
  readonly extension: string;
  readonly extension_ref: string;
}

interface CreationContext {
  readonly accountId: string;
  /** The trimmed, non-empty value the merchant sent in the extension's field. */
  readonly value: string;
  readonly currency: string;
  /** The account's time of the creation. */
  readonly at: Date;
}

type Attached =
  | { readonly ok: true; readonly ref: string }
  | { readonly ok: false; readonly failure: RuleFailure };

/**
 * The outcome of the checks before the creating transaction opens: field errors join the request's other
 * validation errors (400); a refusal is the business answer once the request is otherwise valid; `attach` runs
 * inside the creating transaction (locks, last checks) and answers what the row names (its `extension_ref`).
 */
export type Prepared =
  | { readonly ok: false; readonly errors: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly failure: RuleFailure }
  | { readonly ok: true; attach(tx: Tx): Promise<Attached> };

interface PaidAmounts {
  readonly grossMinor: bigint;
  /** The service's fee; the net is gross less fee. */
  readonly feeMinor: bigint;
  readonly at: Date;
}

export interface Reversal {
  /** What is refunded of the transaction's gross. */
  readonly amountMinor: bigint;
  /** The part of it the service's fee gives back (decision 110); the rest, amountMinor - feeBackMinor, leaves the net. */
  readonly feeBackMinor: bigint;
  /** The refund's id: the reference of any journal the extension posts. */
  readonly reference: string;
  readonly at: Date;
}

/**
 * A reversal's outcome: the extension took `splitMinor` of the refund's net part back itself (from payables that
 * still hold it) into refund clearing; the merchant's funds pay `merchantMinor`, the rest.
 */
export type Reversed =
  | { readonly ok: true; readonly merchantMinor: bigint; readonly splitMinor: bigint }
  | { readonly ok: false; readonly failure: RuleFailure };

export interface PaymentExtension {
  /** Stored in the rows it carries (`transactions.extension`): a name once used stays the extension's. */
  readonly name: string;
  /** The create field that names the extension (seed: `marketplace`, `event`). */
  readonly field: keyof CreateTransactionInput & string;
  /** Checks the field's value when a transaction is created (validate-at-creation). */
  prepare(ctx: AppContext, input: CreationContext): Promise<Prepared>;
  /** In the payment's own database transaction: records how the net will divide (record-on-success). */
  recordSuccess(ctx: AppContext, tx: Tx, row: TransactionRow, paid: PaidAmounts): Promise<void>;
  /**
   * At settlement: moves the extension's parts of the net out of the merchant's pending settlement by its own
   * journal, and returns what is left for the merchant's wallet (at most the net).
   */
  settle(
    ctx: AppContext,
    tx: Tx,
    row: TransactionRow,
    netMinor: bigint,
    at: Date,
  ): Promise<{ readonly merchantMinor: bigint }>;
  /**
   * For refunds, with the sale's row locked and before the merchant's funds are touched: takes the refund's net
   * part back from the division's parts in proportion (decision 116), or refuses writing nothing. Optional: an
   * extension without it cannot be refunded.
   */
  reverse?(ctx: AppContext, tx: Tx, row: TransactionRow, reversal: Reversal): Promise<Reversed>;
  /**
   * The processor refused a refund that `reverse` took (decision 790), in the commit that gives its money back, with
   * the sale's row locked and before any ledger row: what the extension reports of the sale stops counting it as
   * refunded. The division stays reduced (decision 116): the parts' money went back to the merchant.
   */
  refused?(
    ctx: AppContext,
    tx: Tx,
    row: TransactionRow,
    refused: Pick<Reversal, 'amountMinor' | 'feeBackMinor'>,
  ): Promise<void>;
}

/**
 * An extension that holds settlement (escrow, decision 115): it does not change how the net divides, only where
 * the merchant's part goes when the sale settles. Unlike a PaymentExtension it is not named by a create field,
 * so it may apply to any sale of the account, split ones included; the first hold that answers a code wins.
 */
export interface SettlementHold {
  readonly name: string;
  /**
   * In the settlement's commit, with the sale's row locked: the ledger account (of the merchant) that receives
   * the merchant's part instead of its wallet, having recorded the hold; null to leave the part to the wallet.
   */
  hold(
    ctx: AppContext,
    tx: Tx,
    row: TransactionRow,
    merchantMinor: bigint,
    at: Date,
  ): Promise<LedgerCode | null>;
  /** For a refund, with the sale's row locked: what of this sale the hold still keeps, as a funds source; null if none. */
  heldFunds(ctx: AppContext, tx: Tx, row: TransactionRow): Promise<FundsSource | null>;
  /** A refund took `amountMinor` from heldFunds, in the same commit. */
  taken(ctx: AppContext, tx: Tx, row: TransactionRow, amountMinor: bigint): Promise<void>;
  /**
   * A refused refund gives `amountMinor` back to what the hold keeps, in the commit that posts it there; of it,
   * `unsettledMinor` the refund had taken from the sale's pending settlement before the sale settled into the hold,
   * which the hold counts as settled too (decision 890).
   */
  returned(
    ctx: AppContext,
    tx: Tx,
    row: TransactionRow,
    amountMinor: bigint,
    unsettledMinor: bigint,
  ): Promise<void>;
  /**
   * For the settlement run's set-based part (decision 561): which of these accounts this hold would take sales
   * of, read under a shared lock of each account's row until commit (as `hold` reads it), so the answer holds.
   */
  holdsAccounts(
    ctx: AppContext,
    tx: Tx,
    accountIds: readonly string[],
  ): Promise<ReadonlySet<string>>;
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** Built once by the composition (src/modules/payment-extensions.ts). */
    readonly paymentExtensions: readonly PaymentExtension[];
    /** The extensions that may hold a settled sale's merchant part (src/modules/payment-extensions.ts). */
    readonly settlementHolds: readonly SettlementHold[];
  }
}

/** Where a settled sale's merchant part goes: the first hold that takes it, else the merchant's wallet. */
export async function merchantDestination(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  merchantMinor: bigint,
  at: Date,
): Promise<LedgerCode> {
  for (const hold of ctx.settlementHolds) {
    const code = await hold.hold(ctx, tx, row, merchantMinor, at);
    if (code !== null) return code;
  }
  return ledgerCodes.walletAvailable;
}

/** What a hold still keeps of this sale, with the hold that keeps it; null when none does. */
export async function heldFundsOf(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
): Promise<{ readonly hold: SettlementHold; readonly source: FundsSource } | null> {
  for (const hold of ctx.settlementHolds) {
    const source = await hold.heldFunds(ctx, tx, row);
    if (source !== null) return { hold, source };
  }
  return null;
}

/**
 * For an extension's `reverse`: moves parts of a refund back from the payables that still hold them into refund
 * clearing, as one `refund.split_collected` journal; answers the sum (0 and no journal when there is none).
 */
export async function collectSplitParts(
  ctx: AppContext,
  tx: Tx,
  input: {
    readonly code: LedgerCode;
    readonly currency: string;
    readonly reference: string;
    readonly at: Date;
    readonly parts: readonly { readonly owner: string; readonly amountMinor: bigint }[];
  },
): Promise<bigint> {
  const parts = input.parts.filter((p) => p.amountMinor > 0n);
  const totalMinor = parts.reduce((sum, p) => sum + p.amountMinor, 0n);
  if (totalMinor === 0n) return 0n;
  await ctx.ledger.post(tx, {
    kind: journalKinds.refundSplitCollected,
    reference: input.reference,
    at: input.at,
    postings: [
      ...parts.map((p) => ({
        owner: p.owner,
        code: input.code,
        currency: input.currency,
        amountMinor: -p.amountMinor,
      })),
      {
        owner: SYSTEM_OWNER,
        code: ledgerCodes.refundClearing,
        currency: input.currency,
        amountMinor: totalMinor,
      },
    ],
  });
  return totalMinor;
}

/** The row's columns for an extension's attach answer. */
export function extensionColumns(extension: PaymentExtension, ref: string): ExtensionColumns {
  return { extension: extension.name, extension_ref: ref };
}

/**
 * The one extension a stored transaction carries, or null. A row naming an extension this composition lacks is
 * refused rather than treated as a plain sale: its money would go to the merchant whole.
 */
export function extensionOf(ctx: AppContext, row: TransactionRow): PaymentExtension | null {
  if (row.extension === null) return null;
  const extension = ctx.paymentExtensions.find((e) => e.name === row.extension);
  if (extension === undefined)
    throw new Error(`transaction ${row.id} names payment extension ${row.extension}, not composed`);
  return extension;
}

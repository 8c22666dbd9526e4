// The port through which a transaction carries an extension (decision 070): a marketplace split, an event sale,
// and next a mall, escrow, a subscription or a refund. Transactions calls these seams at creation, on success and
// at settlement, and never imports an extension: the composition hands the list over as ctx.paymentExtensions
// (src/modules/payment-extensions.ts). A transaction names at most one extension (decision 042).
import type { Insertable } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import type { RuleFailure } from '../../platform/errors.ts';
import type { TransactionRow } from './repository.ts';
import type { CreateTransactionInput } from './schemas.ts';
import type { TransactionTable } from './types.ts';

/** The columns of the transaction row an extension fills at creation to name what the payment belongs to. */
export type ExtensionColumns = Partial<Pick<Insertable<TransactionTable>, 'marketplace' | 'membership_id' | 'event_id'>>;

export interface CreationContext {
  readonly accountId: string;
  /** The trimmed, non-empty value the merchant sent in the extension's field. */
  readonly value: string;
  readonly currency: string;
  /** The account's time of the creation. */
  readonly at: Date;
}

export type Attached = { readonly ok: true; readonly columns: ExtensionColumns } | { readonly ok: false; readonly failure: RuleFailure };

/**
 * The outcome of the checks before the creating transaction opens: field errors join the request's other
 * validation errors (400); a refusal is the business answer once the request is otherwise valid; `attach` runs
 * inside the creating transaction (locks, last checks) and names the row's columns.
 */
export type Prepared =
  | { readonly ok: false; readonly errors: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly failure: RuleFailure }
  | { readonly ok: true; attach(tx: Tx): Promise<Attached> };

export interface PaidAmounts {
  readonly grossMinor: bigint;
  /** The service's fee; the net is gross less fee. */
  readonly feeMinor: bigint;
  readonly at: Date;
}

export interface Reversal {
  /** What is refunded of the transaction's gross. */
  readonly amountMinor: bigint;
  readonly at: Date;
}

export interface PaymentExtension {
  readonly name: string;
  /** The create field that names the extension (seed: `marketplace`, `event`). */
  readonly field: keyof CreateTransactionInput & string;
  /** Whether a stored transaction carries this extension. */
  owns(row: TransactionRow): boolean;
  /** Checks the field's value when a transaction is created (validate-at-creation). */
  prepare(ctx: AppContext, input: CreationContext): Promise<Prepared>;
  /** In the payment's own database transaction: records how the net will divide (record-on-success). */
  recordSuccess(ctx: AppContext, tx: Tx, row: TransactionRow, paid: PaidAmounts): Promise<void>;
  /**
   * At settlement: moves the extension's parts of the net out of the merchant's pending settlement by its own
   * journal, and returns what is left for the merchant's wallet (at most the net).
   */
  settle(ctx: AppContext, tx: Tx, row: TransactionRow, netMinor: bigint, at: Date): Promise<{ readonly merchantMinor: bigint }>;
  /**
   * For refunds (issue 11): takes the extension's parts back, or refuses. Optional until refunds exist: an
   * extension without it cannot be refunded.
   */
  reverse?(ctx: AppContext, tx: Tx, row: TransactionRow, reversal: Reversal): Promise<{ readonly ok: true } | { readonly ok: false; readonly failure: RuleFailure }>;
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** Built once by the composition (src/modules/payment-extensions.ts). */
    readonly paymentExtensions: readonly PaymentExtension[];
  }
}

/** The one extension a stored transaction carries, or null. */
export function extensionOf(ctx: AppContext, row: TransactionRow): PaymentExtension | null {
  const owning = ctx.paymentExtensions.filter((e) => e.owns(row));
  if (owning.length > 1) throw new Error(`transaction ${row.id} names ${owning.length} payment extensions`);
  return owning[0] ?? null;
}

// A settlement run's batches: one per account and currency the run settled, opened by its first transaction and
// grown by each next one in that transaction's own commit, so a batch always matches the transactions naming it.
import { newId } from '../../platform/ids/ids.ts';
import type { Tx } from '../../platform/db/types.ts';
import './types.ts';

export interface BatchEntry {
  readonly accountId: string;
  readonly currency: string;
  readonly grossMinor: bigint;
  readonly feeMinor: bigint;
  readonly at: Date;
}

/**
 * The batches one run opened so far, by account and currency. The run records a batch here only after the
 * transaction that inserted it committed, so a rolled-back settlement never leaves the run a batch id.
 */
export class RunBatches {
  readonly #ids = new Map<string, string>();
  static key(accountId: string, currency: string): string {
    return `${accountId}\u0000${currency}`;
  }
  openFor(accountId: string, currency: string): string | undefined {
    return this.#ids.get(RunBatches.key(accountId, currency));
  }
  committed(accountId: string, currency: string, batchId: string): void {
    this.#ids.set(RunBatches.key(accountId, currency), batchId);
  }
}

/** Adds one settled transaction to the run's open batch for its account and currency, or opens one; returns its id. */
export async function addToBatch(
  tx: Tx,
  open: string | undefined,
  entry: BatchEntry,
): Promise<string> {
  const netMinor = entry.grossMinor - entry.feeMinor;
  if (open !== undefined) {
    await tx
      .updateTable('settlement_batches')
      .set((eb) => ({
        transaction_count: eb('transaction_count', '+', 1),
        gross_minor: eb('gross_minor', '+', entry.grossMinor),
        fee_minor: eb('fee_minor', '+', entry.feeMinor),
        net_minor: eb('net_minor', '+', netMinor),
      }))
      .where('id', '=', open)
      .execute();
    return open;
  }
  const id = newId('stb', 17);
  await tx
    .insertInto('settlement_batches')
    .values({
      id,
      account_id: entry.accountId,
      currency: entry.currency,
      created_at: entry.at,
      transaction_count: 1,
      gross_minor: entry.grossMinor,
      fee_minor: entry.feeMinor,
      net_minor: netMinor,
    })
    .execute();
  return id;
}

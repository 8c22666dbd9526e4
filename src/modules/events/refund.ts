// A refund of an event sale (decision 116): the refund's net part is taken back from the merchant's part (service
// amount and uncovered percent) and each beneficiary's part in proportion to what each still has
// (takeInProportion), and the event's paymentData shrinks by the refunded gross, fee and parts. Before settlement
// every part is still in the merchant's pending settlement. After it, a beneficiary's part comes back from its
// payable as far as the payable still holds it; what was already paid out to the beneficiary is never taken back
// from it: the merchant's funds (its wallet) pay that part.
import { sql } from 'kysely';
import type { Tx } from '../../platform/db/types.ts';
import type { AppContext } from '../../platform/context.ts';
import { ledgerCodes } from '../../platform/ledger/ledger.ts';
import { atMost, takeInProportion } from '../../platform/money/split.ts';
import { collectSplitParts } from '../transactions/extension.ts';
import './types.ts';

export interface SaleReversal {
  readonly accountId: string;
  readonly transactionId: string;
  readonly currency: string;
  readonly grossMinor: bigint;
  readonly feeBackMinor: bigint;
  readonly reference: string;
  readonly at: Date;
}

export async function reverseEventSale(
  ctx: AppContext,
  tx: Tx,
  input: SaleReversal,
): Promise<{ readonly merchantMinor: bigint; readonly splitMinor: bigint }> {
  const netMinor = input.grossMinor - input.feeBackMinor;
  const { sale, parts } = await lockSale(ctx, tx, input);
  const merchantLeftMinor =
    sale.net_minor -
    sale.net_refunded_minor -
    (sale.affiliate_minor - sale.affiliate_refunded_minor);
  const left = [merchantLeftMinor, ...parts.map((p) => p.amount_minor - p.refunded_minor)];
  // Never more than the sale still has (after a refund the processor refused, the merchant pays the difference).
  const takeMinor = atMost(
    netMinor,
    left.reduce((sum, l) => sum + l, 0n),
  );
  const [, ...beneficiaryParts] = takeInProportion(takeMinor, left);
  const fromPayables = await takeBeneficiaryParts(ctx, tx, input, sale, parts, beneficiaryParts);
  const splitMinor = await collectSplitParts(ctx, tx, {
    ...input,
    code: ledgerCodes.beneficiaryPayable,
    parts: fromPayables,
  });
  await shrinkSale(tx, input, sale, takeMinor, beneficiaryParts);
  return { merchantMinor: netMinor - splitMinor, splitMinor };
}

/** The sale, its event and its beneficiaries' parts locked, after the merchant's pending settlement. */
async function lockSale(ctx: AppContext, tx: Tx, input: SaleReversal) {
  // Settlement's order (sales.ts): the merchant's pending settlement, then the event, then the payables.
  await ctx.ledger.hold(tx, [
    { owner: input.accountId, code: ledgerCodes.pendingSettlement, currency: input.currency },
  ]);
  const sale = await tx
    .selectFrom('event_sales')
    .selectAll()
    .where('transaction_id', '=', input.transactionId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  await tx
    .selectFrom('events')
    .select('id')
    .where('id', '=', sale.event_id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const parts = await tx
    .selectFrom('event_sale_shares as s')
    .innerJoin('event_beneficiaries as b', 'b.id', 's.beneficiary_id')
    .select(['s.beneficiary_id', 's.amount_minor', 's.refunded_minor', 's.paid_out_at'])
    .where('s.transaction_id', '=', input.transactionId)
    .orderBy('b.position')
    .forUpdate('s')
    .execute();
  return { sale, parts };
}

type LockedSale = Awaited<ReturnType<typeof lockSale>>;

/**
 * Each beneficiary's part of the refund recorded on its share; answers what comes back from the payables (the
 * part still held there, settled and not yet paid out).
 */
async function takeBeneficiaryParts(
  ctx: AppContext,
  tx: Tx,
  input: SaleReversal,
  sale: LockedSale['sale'],
  parts: LockedSale['parts'],
  beneficiaryParts: readonly bigint[],
): Promise<{ owner: string; amountMinor: bigint }[]> {
  const payables = parts.map((p) => ({
    owner: p.beneficiary_id,
    code: ledgerCodes.beneficiaryPayable,
    currency: input.currency,
  }));
  // Unsettled, the parts are still in pending settlement. Settled, a part no payout has swept yet (its paid_out_at,
  // set under the event's lock, decision 650) is still in its payable, which pools the beneficiary's parts of every
  // sale of the event.
  const settledAt = sale.settled_at;
  const balances =
    settledAt === null || payables.length === 0
      ? payables.map(() => 0n)
      : await ctx.ledger.hold(tx, payables);
  const inPayable = (i: number) => settledAt !== null && parts[i]!.paid_out_at === null;
  const fromPayables: { owner: string; amountMinor: bigint }[] = [];
  for (const [i, part] of parts.entries()) {
    const partMinor = beneficiaryParts[i]!;
    if (partMinor === 0n) continue;
    await tx
      .updateTable('event_sale_shares')
      .set({ refunded_minor: part.refunded_minor + partMinor })
      .where('transaction_id', '=', input.transactionId)
      .where('beneficiary_id', '=', part.beneficiary_id)
      .execute();
    const heldMinor = !inPayable(i) ? 0n : balances[i]! < partMinor ? balances[i]! : partMinor;
    if (heldMinor > 0n) fromPayables.push({ owner: part.beneficiary_id, amountMinor: heldMinor });
  }
  return fromPayables;
}

/** The sale's paymentData shrinks by the refunded gross, fee, net and beneficiaries' parts. */
async function shrinkSale(
  tx: Tx,
  input: SaleReversal,
  sale: LockedSale['sale'],
  takeMinor: bigint,
  beneficiaryParts: readonly bigint[],
): Promise<void> {
  await tx
    .updateTable('event_sales')
    .set({
      refunded_minor:
        sale.refunded_minor + atMost(input.grossMinor, sale.gross_minor - sale.refunded_minor),
      fee_refunded_minor:
        sale.fee_refunded_minor +
        atMost(input.feeBackMinor, sale.fee_minor - sale.fee_refunded_minor),
      net_refunded_minor: sale.net_refunded_minor + takeMinor,
      affiliate_refunded_minor:
        sale.affiliate_refunded_minor + beneficiaryParts.reduce((sum, p) => sum + p, 0n),
    })
    .where('transaction_id', '=', input.transactionId)
    .execute();
}

/**
 * A refund the processor refused (decision 790): paymentData counts the sale's gross and fee whole again. The
 * beneficiaries' parts stay reduced (decision 116); what the refund took of them went back to the merchant, whose
 * `balance` is the gross less the fee and the beneficiaries' parts (repository.ts), so it counts them.
 */
export async function restoreRefusedSale(
  tx: Tx,
  transactionId: string,
  amountMinor: bigint,
  feeBackMinor: bigint,
): Promise<void> {
  await tx
    .updateTable('event_sales')
    .set({
      refunded_minor: sql`refunded_minor - LEAST(refunded_minor, ${amountMinor})`,
      fee_refunded_minor: sql`fee_refunded_minor - LEAST(fee_refunded_minor, ${feeBackMinor})`,
    })
    .where('transaction_id', '=', transactionId)
    .execute();
}

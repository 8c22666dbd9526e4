// A refund of a marketplace payment (decision 116): the refund's net part is taken back from the merchant's and
// each client's share in proportion to what each still has (takeInProportion: to the peso, the leftover pesos to
// the largest dropped fractions, ties to the merchant, listed first). Before settlement every share is still in the
// merchant's pending settlement, so the merchant's funds pay it all and the shares just shrink. After settlement a
// `liquidate` share gives its part back from the client's payable; a share already sent to the client's bank is
// never taken back from the client: the merchant's funds (its wallet) pay that part.
import type { Tx } from '../../platform/db/types.ts';
import type { AppContext } from '../../platform/context.ts';
import { ledgerCodes } from '../../platform/ledger/ledger.ts';
import { atMost, takeInProportion } from '../../platform/money/split.ts';
import { collectSplitParts } from '../transactions/extension.ts';
import './types.ts';

export interface ShareReversal {
  readonly accountId: string;
  readonly transactionId: string;
  readonly currency: string;
  /** The refund's net part: what it takes back of the division. */
  readonly netMinor: bigint;
  readonly reference: string;
  readonly at: Date;
}

export async function reverseMarketplaceShares(
  ctx: AppContext,
  tx: Tx,
  input: ShareReversal,
): Promise<{ readonly merchantMinor: bigint; readonly splitMinor: bigint }> {
  // The merchant's pending settlement before any client payable, the order settlement's split journal takes them.
  await ctx.ledger.hold(tx, [
    { owner: input.accountId, code: ledgerCodes.pendingSettlement, currency: input.currency },
  ]);
  const payment = await tx
    .selectFrom('ma_payments')
    .selectAll()
    .where('transaction_id', '=', input.transactionId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const shares = await tx
    .selectFrom('ma_payment_shares as s')
    .innerJoin('ma_membership_clients as mc', (j) =>
      j.onRef('mc.membership_id', '=', 's.membership_id').onRef('mc.client_id', '=', 's.client_id'),
    )
    .select(['s.client_id', 's.amount_minor', 's.refunded_minor', 's.status'])
    .where('s.transaction_id', '=', input.transactionId)
    .orderBy('mc.position')
    .forUpdate('s')
    .execute();
  const left = [
    payment.merchant_minor - payment.merchant_refunded_minor,
    ...shares.map((s) => s.amount_minor - s.refunded_minor),
  ];
  // Never more than the division still has: after a refund the processor refused (its money went back to the
  // merchant's wallet, decision 116), the merchant pays what the parts no longer hold.
  const takeMinor = atMost(
    input.netMinor,
    left.reduce((sum, l) => sum + l, 0n),
  );
  const [merchantPart, ...clientParts] = takeInProportion(takeMinor, left);
  const fromPayables: { owner: string; amountMinor: bigint }[] = [];
  for (const [i, share] of shares.entries()) {
    const partMinor = clientParts[i]!;
    if (partMinor === 0n) continue;
    await tx
      .updateTable('ma_payment_shares')
      .set({ refunded_minor: share.refunded_minor + partMinor })
      .where('transaction_id', '=', input.transactionId)
      .where('client_id', '=', share.client_id)
      .execute();
    if (share.status === 'liquidate')
      fromPayables.push({ owner: share.client_id, amountMinor: partMinor });
  }
  const splitMinor = await collectSplitParts(ctx, tx, {
    ...input,
    code: ledgerCodes.clientPayable,
    parts: fromPayables,
  });
  await tx
    .updateTable('ma_payments')
    .set({
      refunded_minor: payment.refunded_minor + takeMinor,
      merchant_refunded_minor: payment.merchant_refunded_minor + merchantPart!,
    })
    .where('transaction_id', '=', input.transactionId)
    .execute();
  return { merchantMinor: input.netMinor - splitMinor, splitMinor };
}

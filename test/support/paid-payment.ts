// Stands in for the payment flow's success journal in tests of the split seams: the gross arrives from the
// processor, the fee goes to the service and the net waits in the merchant's pending settlement (supplement §4.3).
import type { Tx } from '../../src/platform/db/types.ts';
import { journalKinds, ledgerCodes, SYSTEM_OWNER } from '../../src/platform/ledger/ledger.ts';
import type { PostingInput } from '../../src/platform/ledger/post.ts';
import { postJournal } from '../../src/platform/ledger/journal-statement.ts';

export async function postPaidPayment(
  tx: Tx,
  input: {
    accountId: string;
    transactionId: string;
    currency: string;
    grossMinor: bigint;
    feeMinor: bigint;
    at: Date;
  },
): Promise<void> {
  const postings: PostingInput[] = [
    {
      owner: SYSTEM_OWNER,
      code: ledgerCodes.processorClearing,
      currency: input.currency,
      amountMinor: -input.grossMinor,
    },
    {
      owner: input.accountId,
      code: ledgerCodes.pendingSettlement,
      currency: input.currency,
      amountMinor: input.grossMinor - input.feeMinor,
    },
  ];
  if (input.feeMinor > 0n)
    postings.push({
      owner: SYSTEM_OWNER,
      code: ledgerCodes.serviceFees,
      currency: input.currency,
      amountMinor: input.feeMinor,
    });
  await postJournal(tx, {
    kind: journalKinds.transactionCapture,
    reference: input.transactionId,
    at: input.at,
    postings,
  });
}

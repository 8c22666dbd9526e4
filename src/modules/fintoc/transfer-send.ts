// One send of a payout's Fintoc transfer, and the lookup of a transfer whose answer was lost (decision 750).
//   answer:  the transfer's id and state recorded (a final state resolves the payout at once);
//   refused: on the first send, Fintoc refused the only request it had for the key: nothing was sent, the payout is a
//            banking_error with Fintoc's message. On a resend the refusal proves nothing (Fintoc answers a resend
//            whose parameters differ with an error, and the first request may have made the transfer): the payout is
//            left `unresolved`, its money held, for the operator;
//   lost:    no answer (timeout, reset, 5xx): the row stays `sending`, looked up and sent again later.
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import type { AppContext } from '../../platform/context.ts';
import { fintocLimits } from '../../limits/index.ts';
import type { FintocAccount } from '../../platform/processors/fintoc-settings.ts';
import type { PayoutRow } from '../wallet/repository.ts';
import { fintocInstitutionOf } from './institutions.ts';
import { applyTransferResult, markUnresolved, transferVerdict } from './transfer-result.ts';

const accountTypes = {
  '1': 'checking_account',
  '2': 'sight_account',
  '3': 'savings_account',
} as const;

/** Fintoc's create-transfer body for the payout, or null when Fintoc names no institution for its bank. */
function transferBody(sourceAccount: string, payout: PayoutRow): Record<string, unknown> | null {
  const institution = fintocInstitutionOf(payout.accountbank_sbif);
  if (institution === null) return null;
  return {
    account_id: sourceAccount,
    amount: minorAsJsonNumber(BigInt(payout.amount_minor)),
    currency: payout.currency,
    comment: payout.subject.slice(0, fintocLimits.transferCommentLengthMax),
    reference_id: payout.order,
    counterparty: {
      holder_id: payout.accountbank_rut,
      holder_name: payout.accountbank_name,
      account_number: payout.accountbank_num,
      account_type: accountTypes[payout.accountbank_type],
      institution_id: institution,
    },
    metadata: { cobro_payout_id: payout.id, cobro_kind: payout.kind },
  };
}

/** Sends the payout's transfer with its id as idempotency key; `sendNumber` 1 is the first send. */
export async function sendTransfer(
  ctx: AppContext,
  account: FintocAccount & { readonly sourceAccount: string },
  payout: PayoutRow,
  sendNumber: number,
): Promise<void> {
  const body = transferBody(account.sourceAccount, payout);
  // The claim refuses such a payout before its first send; one claimed before decision 750 is the operator's.
  if (body === null)
    return markUnresolved(ctx, payout.id, `bank ${payout.accountbank_sbif} has no Fintoc id`);
  try {
    const transfer = await account.api.createTransfer(body, payout.id);
    await applyTransferResult(
      ctx,
      payout.id,
      String(transfer.id),
      transferVerdict(transfer),
      transfer,
    );
  } catch (error) {
    const { fintocRefused } = await import('../../platform/processors/fintoc-client.ts');
    if (!fintocRefused(error)) {
      ctx.logger.warn(
        { err: error, payout: payout.id },
        'Fintoc transfer answer lost: looked up and sent again later with the same idempotency key',
      );
      return;
    }
    const reason = `Fintoc: ${error.message.split('\n').join(' ')}`.slice(
      0,
      fintocLimits.reasonLengthMax,
    );
    if (sendNumber === 1)
      await applyTransferResult(
        ctx,
        payout.id,
        null,
        { kind: 'failed', reason, returned: false },
        null,
      );
    else await markUnresolved(ctx, payout.id, `resend refused: ${reason}`);
  }
}

/**
 * The transfer Fintoc made for the payout, if its list shows one: Fintoc has no lookup by idempotency key, so the
 * account's outbound transfers since the first send are read (at most fintocLimits.transferLookupMax) and the one
 * whose metadata names the payout is taken.
 */
export async function lookUpTransfer(
  account: FintocAccount & { readonly sourceAccount: string },
  payoutId: string,
  firstSentAt: Date,
): Promise<Record<string, unknown> | null> {
  const since = new Date(firstSentAt.getTime() - fintocLimits.transferLookupSlackMs);
  const transfers = await account.api.listOutboundTransfers(
    account.sourceAccount,
    since.toISOString(),
    fintocLimits.transferLookupMax,
  );
  return (
    transfers.find(
      (t) => (t.metadata as Record<string, unknown> | undefined)?.cobro_payout_id === payoutId,
    ) ?? null
  );
}

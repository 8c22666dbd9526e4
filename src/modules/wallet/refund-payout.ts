// A bank refund's payout (decision 112): the refunds module asks for it once the payer's bank details are recorded.
// Its money already sits in refund clearing, so unlike a merchant's payout it reserves nothing and writes no wallet
// movement; it then travels the payouts' bank channel as any payout does (the sandbox clock, or the production
// payroll file of `cobro payouts export` / `import`), and transitionPayout moves its money and its refund.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { newId } from '../../platform/ids/ids.ts';
import { limits } from '../../limits/index.ts';
import type { PayoutDestination } from './payout-plan.ts';
import { insertPayout } from './repository.ts';

export interface RefundPayoutRequest {
  readonly accountId: string;
  /** Unique among the account's refund payouts: the refund's id and its attempt. */
  readonly order: string;
  readonly currency: string;
  readonly amountMinor: bigint;
  readonly subject: string;
  readonly destination: PayoutDestination;
  /** Account time. */
  readonly at: Date;
}

/** Inserts the payout `pending` inside the caller's transaction and answers its id. */
export async function createRefundPayout(
  ctx: AppContext,
  tx: Tx,
  request: RefundPayoutRequest,
): Promise<string> {
  const id = newId('mor', 17);
  const d = request.destination;
  const inserted = await insertPayout(tx, {
    id,
    account_id: request.accountId,
    kind: 'refund',
    order: request.order,
    order_ext: null,
    request_hash: request.order,
    currency: request.currency,
    amount_minor: request.amountMinor,
    email: d.email,
    phone: d.phone,
    subject: request.subject,
    accountbank_name: d.accountbankName,
    accountbank_rut: d.accountbankRut,
    accountbank_sbif: d.accountbankSbif,
    accountbank_type: d.accountbankType,
    accountbank_num: d.accountbankNum,
    url_notify: null,
    additional_parameters: null,
    status: 'pending',
    reason_rejection: '',
    movement_id: null,
    // The sandbox resolves it on its clock like any payout of an amount without a fixed outcome; production waits
    // for the payroll file.
    due_at:
      ctx.config.mode === 'sandbox'
        ? new Date(request.at.getTime() + limits.sandboxPayoutProcessingAfterMs)
        : null,
    created_at: request.at,
    updated_at: request.at,
  });
  if (!inserted) throw new Error(`refund payout order ${request.order} is taken`);
  return id;
}

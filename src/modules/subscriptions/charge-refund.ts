// A recurring charge approved after its subscription ended (decision 910): a cancellation that committed between the
// processor's last "still wanted?" check (decision 825) and its answer. The charge is refunded in full in the commit
// that records it, through POST /api/nullification's command (ledger journals, the nullification's callback, the
// payment `refunded`), so no restart can find the charge recorded and the refund missing, and a retry of the try
// finds the payment final and refunds nothing. The processor is asked after the commit (dispatch.ts), or by the
// `refund-dispatch` due work when that was cut short.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { registerNullification } from '../refunds/nullify.ts';
import type { TransactionRow } from '../transactions/repository.ts';

/** What the nullification's `subject` says (the merchant sees it in the wallet movement and the refund). */
const endedSubject = 'Reembolso: la suscripción terminó durante el cobro.';

/** Registers the full refund of `payment` inside `tx`; its id, or null when refused (logged: the charge stays). */
export async function refundEndedCharge(
  ctx: AppContext,
  tx: Tx,
  payment: TransactionRow,
): Promise<string | null> {
  const registered = await registerNullification({ ...ctx, db: tx }, payment.account_id, {
    id: payment.id,
    amount: BigInt(payment.amount_minor),
    subject: endedSubject,
  });
  if (registered.ok) return registered.nullificationId;
  ctx.logger.error(
    { transaction: payment.id, code: registered.failure.type },
    'charge of an ended subscription not refunded',
  );
  return null;
}

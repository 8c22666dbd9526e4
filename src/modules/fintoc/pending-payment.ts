// A Fintoc payment the bank has not confirmed (decision 745): the payer finished at Fintoc, and its payment intent is
// `pending` (Fintoc validates it for up to 10 days, then sends payment_intent.succeeded or .failed). It is not a
// decline: the session stays open and holds its sale (decision 665's undecided session) until Fintoc's webhook or the
// `fintoc-session-close` due work, asking every fintocLimits.intentPendingRecheckMs, reads succeeded or failed. At
// fintocLimits.intentPendingAskMsMax from when Cobro first saw it pending, the try is declined and an error logged:
// Fintoc itself fails such a payment after its 10 days.
import type { ColumnType } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import { declined } from '../../platform/processors/fintoc-processor.ts';
import { fintocLimits } from '../../limits/index.ts';
import { settleFintocSession, type FintocSession } from './sale-settle.ts';

declare module '../../platform/processors/account-processors.ts' {
  interface ProcessorSessionTable {
    /** When Cobro first saw the session's payment pending at Fintoc (migration 0550); null otherwise. */
    pending_since: ColumnType<Date | null, Date | null | undefined, Date | null>;
  }
}

/** Notes that Fintoc holds the session's payment pending (the first time only); 'pending', the webhook's result. */
export async function markPending(ctx: AppContext, session: FintocSession): Promise<'pending'> {
  await ctx.db
    .updateTable('processor_sessions')
    .set({ pending_since: ctx.clock.now() })
    .where('attempt_id', '=', session.attempt_id)
    .where('state', '=', 'redirected')
    .where('pending_since', 'is', null)
    .execute();
  return 'pending';
}

/** The due work found the payment still pending: asked again later, or declined once asked about for too long. */
export async function stillPending(ctx: AppContext, session: FintocSession): Promise<void> {
  const since = session.pending_since;
  if (
    since === null ||
    ctx.clock.now().getTime() - since.getTime() < fintocLimits.intentPendingAskMsMax
  ) {
    await markPending(ctx, session);
    return;
  }
  ctx.logger.error(
    { attempt: session.attempt_id, transaction: session.transaction_id, pendingSince: since },
    'Fintoc payment still pending past fintocLimits.intentPendingAskMsMax: declined; check the bank statement',
  );
  await settleFintocSession(ctx, session, declined('failed'), null, null);
}

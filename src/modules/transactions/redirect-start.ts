// A payment whose payer authorises on the acquirer's own page (Webpay Plus), in the three steps of
// payment-attempt.ts, with the payer's trip in between:
//   start (here): claim the transaction (lease: transactionLimits.acquirer.redirectLeaseMs), create the acquirer's
//           transaction outside any database transaction, keep its token (processor_sessions `redirected`); the
//           payer leaves.
//   finish (redirect-finish.ts): the payer is back with the token: mark the session `committing` (lease renewed),
//           commit outside any transaction, and record the outcome, money and callback in one commit.
//   a lost commit (timeout, network, crash): ask the acquirer's status before deciding (decision 150); if that is
//           lost too, or says nothing is committed yet (a commit still running, decision 1010), the session stays
//           `committing` and the `processor-commit-recovery` due work asks again (redirect-recovery.ts).
//   abandon (redirect-abandon.ts): the payer came back with TBK_TOKEN (or the acquirer's timeout): the transaction
//           is rejected cleanly.
import type { AppContext } from '../../platform/context.ts';
import { newId } from '../../platform/ids/ids.ts';
import type { PaymentProcessor } from '../../platform/processors/processor.ts';
import { transactionLimits } from '../../limits/index.ts';
import { claimAttempt, releaseClaim } from './attempt-claim.ts';
import type { AttemptOutcome } from './attempt-outcome.ts';

export type RedirectStartOutcome =
  | AttemptOutcome
  | { readonly kind: 'redirect'; readonly url: string; readonly token: string };

export interface RedirectStartInput {
  readonly transactionId: string;
  /** The transaction's account, whose clock says when the claim starts. */
  readonly accountId: string;
  readonly method: { readonly payment: number; readonly name: string };
  readonly processor: PaymentProcessor;
  readonly returnUrl: string;
}

export async function startRedirectPayment(
  ctx: AppContext,
  input: RedirectStartInput,
): Promise<RedirectStartOutcome> {
  const flow = input.processor.redirect;
  if (flow === undefined) throw new Error(`processor ${input.processor.name} has no redirect flow`);
  const attemptId = newId('att', 20);
  // Read before the claim starts its lease, so the hold end told to the acquirer is never after the lease's.
  const holdEndsAt = new Date(
    ctx.clock.now().getTime() + transactionLimits.acquirer.redirectLeaseMs,
  );
  const claim = await claimAttempt(ctx, {
    transactionId: input.transactionId,
    accountId: input.accountId,
    attemptId,
    leaseMs: transactionLimits.acquirer.redirectLeaseMs,
  });
  if (claim.kind !== 'claimed') return claim;
  let started;
  try {
    started = await flow.start({
      attemptId,
      sessionId: input.transactionId,
      amountMinor: claim.amountMinor,
      currency: claim.currency,
      returnUrl: input.returnUrl,
      holdEndsAt,
    });
  } catch (error) {
    await releaseClaim(ctx, input.transactionId, attemptId);
    throw error;
  }
  const now = await ctx.accountClock.now(claim.accountId, ctx.db, { kept: true });
  await ctx.db
    .insertInto('processor_sessions')
    .values({
      attempt_id: attemptId,
      transaction_id: input.transactionId,
      account_id: claim.accountId,
      processor: input.processor.name,
      token: started.token,
      state: 'redirected',
      holds_sale: started.holdsSale,
      webpay_keys_id: started.keysId ?? null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { kind: 'redirect', url: started.url, token: started.token };
}

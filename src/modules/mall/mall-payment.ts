// The payer's one payment of a mall at /gateway/mall/{id}, in the three steps of a transaction's attempt
// (transactions/payment-attempt.ts): claim the mall row with a lease, charge the sum through the processor outside
// any database transaction, then record the outcome for every store in one commit (mall-result.ts).
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { newId } from '../../platform/ids/ids.ts';
import type { ChargeOutcome } from '../../platform/processors/processor.ts';
import { chargeHoldingClaim, type AttemptInput } from '../transactions/payment-attempt.ts';
import type { MallStatus } from './types.ts';
import { recordMallRejection, recordMallSuccess } from './mall-result.ts';
import { lockMall } from './repository.ts';

export type MallAttemptOutcome =
  | { readonly kind: 'final'; readonly status: MallStatus }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'approved' }
  | { readonly kind: 'declined'; readonly payerMessage: string };

export type MallAttemptInput = Omit<AttemptInput, 'transactionId' | 'accountId' | 'extended'> & {
  readonly mallId: string;
};

type MallClaim =
  | { readonly kind: 'final'; readonly status: MallStatus }
  | { readonly kind: 'in_progress' }
  | {
      readonly kind: 'claimed';
      readonly amountMinor: bigint;
      readonly currency: string;
      readonly description: string;
    };

export async function attemptMallPayment(
  ctx: AppContext,
  input: MallAttemptInput,
): Promise<MallAttemptOutcome> {
  const attemptId = newId('att', 20);
  const claim = await claimMall(ctx, input.mallId, attemptId);
  if (claim.kind !== 'claimed') return claim;
  const outcome = await chargeHoldingClaim(
    ctx.processor,
    input.charge,
    attemptId,
    claim,
    async () => {
      await ctx.db
        .updateTable('malls')
        .set({ attempt_id: null, attempt_lease_until: null })
        .where('id', '=', input.mallId)
        .where('attempt_id', '=', attemptId)
        .execute();
    },
  );
  return recordMallOutcome(ctx, input, attemptId, outcome);
}

/** Step 1: holds the pending mall for this attempt for the attempt lease, or says why it cannot. */
async function claimMall(ctx: AppContext, mallId: string, attemptId: string): Promise<MallClaim> {
  return inTransaction(ctx.db, async (tx) => {
    const mall = await lockMall(tx, mallId);
    if (mall === undefined) throw new Error('attempt on a mall that does not exist');
    if (mall.status !== 'pending') return { kind: 'final', status: mall.status } as const;
    const now = await ctx.accountClock.now(mall.account_id, tx);
    // The lease is on the service clock (decision 760): a sandbox clock advance never frees a live attempt.
    const leaseNow = ctx.clock.now();
    if (
      mall.attempt_lease_until !== null &&
      mall.attempt_lease_until.getTime() > leaseNow.getTime()
    )
      return { kind: 'in_progress' } as const;
    await tx
      .updateTable('malls')
      .set({
        attempt_id: attemptId,
        attempt_lease_until: new Date(leaseNow.getTime() + ctx.config.attemptLeaseMs),
        updated_at: now,
      })
      .where('id', '=', mall.id)
      .execute();
    return {
      kind: 'claimed',
      amountMinor: BigInt(mall.amount_minor),
      currency: mall.currency,
      description: `Mall ${mall.order}`,
    } as const;
  });
}

/** Step 3: under the mall's lock, if the claim is still this attempt's, records the result for every store. */
async function recordMallOutcome(
  ctx: AppContext,
  input: MallAttemptInput,
  attemptId: string,
  outcome: ChargeOutcome,
): Promise<MallAttemptOutcome> {
  return inTransaction(ctx.db, async (tx): Promise<MallAttemptOutcome> => {
    const mall = await lockMall(tx, input.mallId);
    if (mall === undefined) throw new Error('mall vanished during an attempt');
    if (mall.status !== 'pending' || mall.attempt_id !== attemptId) {
      ctx.logger.error(
        { mall: mall.id, attempt: attemptId, approved: outcome.approved },
        'mall payment attempt lost its claim',
      );
      return { kind: 'final', status: mall.status };
    }
    const now = await ctx.accountClock.now(mall.account_id, tx);
    if (outcome.approved) {
      await recordMallSuccess(
        ctx,
        tx,
        mall,
        {
          paidPayment: input.method.payment,
          media: input.method.name,
          authorizationCode: outcome.authorizationCode,
          cardBrand: outcome.cardBrand,
          cardLast4: outcome.cardLast4,
          cardToken: outcome.cardToken,
          cardType: outcome.cardType,
          installments: input.charge.kind === 'card' ? input.charge.installments : 0,
          payerIdentifier: input.payerIdentifier,
          payerBank: input.payerBank,
          payerIp: input.payerIp,
        },
        now,
      );
      return { kind: 'approved' };
    }
    await recordMallRejection(
      ctx,
      tx,
      mall,
      {
        reason: 'declined',
        gatewayMessage: outcome.gatewayMessage,
        paidPayment: input.method.payment,
        media: input.method.name,
        cardBrand: outcome.cardBrand,
        cardLast4: outcome.cardLast4,
        payerIp: input.payerIp,
      },
      now,
    );
    return { kind: 'declined', payerMessage: outcome.payerMessage };
  });
}

// One payer's attempt to pay from the hosted checkout. Three steps so that no database lock is held while the
// processor answers (STYLE rule 10) and still only one attempt can ever charge:
//   1. lock the row, re-check it is pending and not expired, claim it with an attempt id and a lease
//      (attempt-claim.ts);
//   2. charge through the processor with the attempt id as idempotency key (here);
//   3. lock the row again, check the claim is still ours, record the attempt and the result, money and callback
//      together (attempt-outcome.ts).
// A second tab submitting meanwhile finds the claim (step 1) or the final status, and never charges.
import type { AppContext } from '../../platform/context.ts';
import { newId } from '../../platform/ids/ids.ts';
import type {
  ChargeOutcome,
  ChargeRequest,
  PaymentProcessor,
} from '../../platform/processors/processor.ts';
import { processorForAccount } from '../../platform/processors/account-processors.ts';
import { transactionLimits } from '../../limits/index.ts';
import { claimAttempt, releaseClaim } from './attempt-claim.ts';
import { recordOutcome, type AttemptFacts, type AttemptOutcome } from './attempt-outcome.ts';
import { recordSuccessGrouped } from './success-group-commit.ts';

export interface AttemptInput {
  readonly transactionId: string;
  /** The transaction's account, whose clock says when the claim starts. */
  readonly accountId: string;
  readonly method: { readonly payment: number; readonly name: string };
  /** Without idempotencyKey, amount, currency and description: this module fills them from the row. */
  readonly charge: DistributiveOmit<
    ChargeRequest,
    'idempotencyKey' | 'amountMinor' | 'currency' | 'description'
  >;
  readonly payerIdentifier: string | null;
  readonly payerBank: string | null;
  readonly payerIp: string | null;
  /** The row names an extension: its success is recorded alone, not in its account's group (decision 615). */
  readonly extended: boolean;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Step 2, shared with the mall's payment: charges what the claim holds, with the attempt id as the idempotency key;
 * if the processor throws, `release` frees the claim so the payer can try again (the processor saw this key at
 * most once).
 */
export async function chargeHoldingClaim(
  processor: Pick<PaymentProcessor, 'charge'>,
  charge: AttemptInput['charge'],
  attemptId: string,
  claim: { readonly amountMinor: bigint; readonly currency: string; readonly description: string },
  release: () => Promise<void>,
): Promise<ChargeOutcome> {
  const request = {
    ...charge,
    idempotencyKey: attemptId,
    amountMinor: claim.amountMinor,
    currency: claim.currency,
    description: claim.description,
  } as ChargeRequest;
  try {
    return await processor.charge(request);
  } catch (error) {
    await release();
    throw error;
  }
}

export async function attemptPayment(
  ctx: AppContext,
  input: AttemptInput,
): Promise<AttemptOutcome> {
  const attemptId = newId('att', 20);
  const claim = await claimAttempt(ctx, {
    transactionId: input.transactionId,
    accountId: input.accountId,
    attemptId,
    leaseMs: transactionLimits.attemptLeaseMs,
  });
  if (claim.kind !== 'claimed') return claim;

  const processor = await processorForAccount(ctx, claim.accountId);
  const outcome = await chargeHoldingClaim(processor, input.charge, attemptId, claim, () =>
    releaseClaim(ctx, input.transactionId, attemptId),
  );
  const facts: AttemptFacts = {
    transactionId: input.transactionId,
    accountId: input.accountId,
    attemptId,
    method: input.method,
    installments: input.charge.kind === 'card' ? input.charge.installments : 0,
    payerIdentifier: input.payerIdentifier,
    payerBank: input.payerBank,
    payerIp: input.payerIp,
  };
  return outcome.approved && !input.extended
    ? recordSuccessGrouped(ctx, facts, outcome, claim.row)
    : recordOutcome(ctx, facts, outcome);
}

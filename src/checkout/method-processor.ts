// The processor that takes a method on the checkout: cards, the account's card processor (Webpay Plus in
// production, the sandbox's in sandbox); bank transfers, Fintoc in production for an account with Fintoc keys,
// else null (the sandbox's bank login form, through attemptPayment).
import type { AppContext } from '../platform/context.ts';
import { processorForAccount } from '../platform/processors/account-processors.ts';
import { fintocProcessorFor } from '../platform/processors/fintoc-selection.ts';
import type { PaymentProcessor } from '../platform/processors/processor.ts';

export async function processorForMethod(
  ctx: AppContext,
  accountId: string,
  kind: 'card' | 'bank_transfer',
): Promise<PaymentProcessor | null> {
  return kind === 'card' ? processorForAccount(ctx, accountId) : fintocProcessorFor(ctx, accountId);
}

// Which processor charges an account's stored cards in production (issue 33): Oneclick Mall when the account has
// its keys, else the account's other processor. Light on purpose: the Oneclick processor (and with it the SDK) is
// loaded only when a stored card is charged or a payment refunded, never by a checkout page or a sale's creation.
import type { AppContext } from '../context.ts';
import type { PaymentProcessor } from './processor.ts';

/** `base` with the account's stored cards charged and refunded through Oneclick, when it has Oneclick keys. */
export function withOneclick(
  ctx: AppContext,
  accountId: string,
  base: PaymentProcessor,
): PaymentProcessor {
  const oneclick = async () => {
    const { oneclickForAccount } = await import('./oneclick-processor.ts');
    return oneclickForAccount(ctx, accountId);
  };
  return {
    ...base,
    async chargeStoredCard(request) {
      const processor = await oneclick();
      return processor === null
        ? base.chargeStoredCard(request)
        : processor.chargeStoredCard(request);
    },
    // Oneclick refunds the charges it made (it knows them by payment id); the other processor all the rest.
    async refund(request) {
      const processor = request.transactionId === undefined ? null : await oneclick();
      return (await processor?.refund(request)) ?? base.refund(request);
    },
  };
}

// Whether anyone could pay the sale being created (issue 15, decision 451), asked once its fields are valid.
import type { AppContext } from '../../platform/context.ts';
import { ruleFailure, type RuleFailure } from '../../platform/errors/errors.ts';
import {
  checkoutTakes,
  processorForAccount,
  unpayableReason,
} from '../../platform/processors/account-processors.ts';
import { paymentMethodCatalogue } from '../reference/repository.ts';

/**
 * A sale no payer could pay is refused now rather than stranding the payer (issue 15, decision 451): a currency in
 * which the account's processor takes no method, production without a processor, a fixed `payment` it cannot take.
 * In sandbox the processor is the deployment's, so this reads nothing from the database.
 */
export async function unpayable(
  ctx: AppContext,
  accountId: string,
  currency: string,
  payment: number | null,
  kind: string | null,
): Promise<RuleFailure | null> {
  const processor = await processorForAccount(ctx, accountId);
  const reason = await unpayableReason(
    ctx,
    processor,
    accountId,
    currency,
    await paymentMethodCatalogue(ctx),
  );
  if (reason === 'processor_not_configured') return ruleFailure('processor_not_configured');
  if (reason === 'currency_not_payable') return ruleFailure('currency_not_payable', { currency });
  if (payment !== null && kind !== null && !checkoutTakes(processor, kind, currency, payment)) {
    return ruleFailure('payment_method_unavailable', { payment, currency });
  }
  return null;
}

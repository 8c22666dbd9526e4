// POST /api/mall's checks (reference §5.1; decision 122), every one run before the first write: the mall's own
// fields, its merchant tuples and their stores, and whether the deployment's processor could take it.
import type { AppContext } from '../../platform/context.ts';
import { ruleFailure, validationError, type RuleFailure } from '../../platform/errors/errors.ts';
import { checkCallbackUrl } from '../../platform/notifications/ssrf-guard.ts';
import {
  findPaymentMethod,
  knownCurrencies,
  paymentMethodCatalogue,
} from '../reference/repository.ts';
import { checkoutTakes, unpayableReason } from '../../platform/processors/account-processors.ts';
import { allMethodsPayment, isHttpUrl } from '../transactions/transaction-create.ts';
import { readMallLines } from './mall-input.ts';
import { resolveStores, type Store } from './mall-stores.ts';

export interface MallCreateInput {
  readonly email: string;
  readonly payment: number;
  readonly merchant: readonly (readonly unknown[])[];
  readonly order: string;
  readonly urlreturn: string;
  readonly urlnotify?: string | undefined;
  readonly amount?: number | undefined;
  readonly currency?: string | undefined;
}

/** A mall that passed every check: what its writes need. */
export interface MallPlan {
  readonly currency: string;
  readonly urlreturn: string;
  readonly urlnotify: string | null;
  readonly totalMinor: bigint;
  readonly stores: readonly Store[];
  /** The caller's time of the creation. */
  readonly at: Date;
}

/** The mall's own fields: a known currency, a method of it (or 99), its urls. */
async function checkMallFields(
  ctx: AppContext,
  accountId: string,
  input: MallCreateInput,
  errors: Record<string, string>,
) {
  const currency = (input.currency?.trim() || 'CLP').toUpperCase();
  if (!(await knownCurrencies(ctx)).has(currency)) errors.currency = 'invalid';
  if (
    input.payment !== allMethodsPayment &&
    errors.currency === undefined &&
    (await findPaymentMethod(ctx, currency, input.payment)) === undefined
  )
    errors.payment = 'invalid';
  const urlreturn = input.urlreturn.trim();
  if (!isHttpUrl(urlreturn)) errors.urlreturn = 'invalid';
  const urlnotify = input.urlnotify?.trim() || null;
  if (urlnotify !== null && !checkCallbackUrl(urlnotify, ctx.config, accountId).ok)
    errors.urlnotify = 'invalid';
  return { currency, urlreturn, urlnotify };
}

/** The mall's checkout pays through the deployment's processor: a mall it could not take is refused (decision 451). */
async function unpayableMall(
  ctx: AppContext,
  currency: string,
  payment: number,
): Promise<RuleFailure | null> {
  const catalogue = await paymentMethodCatalogue(ctx);
  const reason = await unpayableReason(ctx, ctx.processor, null, currency, catalogue);
  if (reason === 'processor_not_configured') return ruleFailure('processor_not_configured');
  if (reason === 'currency_not_payable') return ruleFailure('currency_not_payable', { currency });
  const fixed =
    payment === allMethodsPayment
      ? undefined
      : catalogue.find((m) => m.currency === currency && m.payment === payment);
  return fixed !== undefined && !checkoutTakes(ctx.processor, fixed.kind, currency)
    ? ruleFailure('payment_method_unavailable', { payment, currency })
    : null;
}

/** Every check, in the request's order: a 400 with all field problems, else a refusal, else the mall to write. */
export async function planMall(
  ctx: AppContext,
  caller: { readonly id: string; readonly name: string },
  input: MallCreateInput,
): Promise<MallPlan | RuleFailure> {
  const errors: Record<string, string> = {};
  const { currency, urlreturn, urlnotify } = await checkMallFields(ctx, caller.id, input, errors);
  const read = readMallLines(input.merchant);
  if (!read.ok) Object.assign(errors, read.errors);
  // A line's URL is the caller's choice, written on the store's transaction in the store's name: an origin trusted
  // for the store alone is not the caller's to aim at (decision 983), so it passes the caller's check too.
  for (const line of read.ok ? read.lines : [])
    if (line.urlnotify !== null && !checkCallbackUrl(line.urlnotify, ctx.config, caller.id).ok)
      errors[`merchant.${line.position}.5`] = 'invalid';
  if (read.ok && input.amount !== undefined && BigInt(input.amount) !== read.totalMinor)
    errors.amount = 'does not add up to the merchant amounts';
  const at = await ctx.accountClock.now(caller.id, ctx.db);
  const { stores, failure } = read.ok
    ? await resolveStores(ctx, caller.id, caller.name, read.lines, currency, at, errors)
    : { stores: [], failure: null };
  if (Object.keys(errors).length > 0) throw validationError(errors);
  const refused = await unpayableMall(ctx, currency, input.payment);
  if (refused !== null) return refused;
  if (failure !== null) return failure;
  if (!read.ok) throw new Error('lines read');
  return { currency, urlreturn, urlnotify, totalMinor: read.totalMinor, stores, at };
}

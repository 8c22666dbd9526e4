// The create's field checks (the seed's and reference §1.1's rules), each a named step that adds its field's problem
// to `errors`; planCreate (transaction-create.ts) runs them in the request's order and answers every problem at once.
import type { AppContext } from '../../platform/context.ts';
import { normaliseRut } from '../../platform/ids/rut.ts';
import { checkCallbackUrl } from '../../platform/notifications/ssrf-guard.ts';
import { parseLocal } from '../../platform/time/time-format.ts';
import { limits, transactionLimits } from '../../limits/index.ts';
import { findPaymentMethod, knownCurrencies } from '../reference/repository.ts';
import type { CreateTransactionInput } from './schemas.ts';

/** `expired`'s problem when it is not written `YYYY-MM-DD HH:MM:SS` (the service's zone is implied). */
const expiredFormatProblem = 'format YYYY-MM-DD HH:MM:SS';

/** payment 99 lets the payer choose among every method of the currency. */
export const allMethodsPayment = 99;
/** reference §1.1: these bank-transfer methods need additional_parameters.payer_rut. */
const payerRutRequired: ReadonlySet<number> = new Set([4, 19, 26]);

type Errors = Record<string, string>;

/** A `urlreturn` the payer's browser can be sent back to (the mall's lines use the same rule). */
export function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

export function present(text: string | undefined): string | null {
  return text === undefined || text.trim() === '' ? null : text.trim();
}

/** `currency` (CLP when absent) and `payment`: a known currency, and a method of it unless 99 or absent. */
export async function checkCurrencyAndPayment(
  ctx: AppContext,
  input: CreateTransactionInput,
  errors: Errors,
) {
  const currency = (present(input.currency) ?? 'CLP').toUpperCase();
  if (!(await knownCurrencies(ctx)).has(currency)) errors.currency = 'invalid';
  const payment = input.payment ?? null;
  const fixed = payment !== null && payment !== allMethodsPayment && errors.currency === undefined;
  const fixedMethod = fixed ? await findPaymentMethod(ctx, currency, payment) : null;
  if (fixed && fixedMethod === undefined) errors.payment = 'invalid';
  return { currency, payment, fixedKind: fixedMethod?.kind ?? null };
}

/** `urlreturn` and `urlnotify`, trimmed; null when absent. */
export function checkUrls(
  ctx: AppContext,
  accountId: string,
  input: CreateTransactionInput,
  errors: Errors,
) {
  const urlreturn = present(input.urlreturn);
  const urlnotify = present(input.urlnotify);
  if (urlreturn !== null && !isHttpUrl(urlreturn)) errors.urlreturn = 'invalid';
  // Only the static checks (scheme, address literals): names are resolved and checked at each delivery.
  if (urlnotify !== null && !checkCallbackUrl(urlnotify, ctx.config, accountId).ok)
    errors.urlnotify = 'invalid';
  return { urlreturn, urlnotify };
}

/**
 * `expired`, in the service's zone: at least the lead time after the account's now (read only here, when given),
 * before the bound; an expiring sale needs a `urlreturn` to send the payer back to.
 */
export async function checkExpiry(
  ctx: AppContext,
  expired: string | null,
  hasUrlreturn: boolean,
  now: () => Promise<Date>,
  errors: Errors,
): Promise<Date | null> {
  if (expired === null) return null;
  // An ISO 8601 date (`2026-12-01T10:00:00Z`) or another spelling is told the one format taken (issue 32).
  const wellFormed = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(expired);
  const expiresAt = wellFormed ? parseLocal(expired, ctx.config.timeZone) : null;
  if (!wellFormed) errors.expired = expiredFormatProblem;
  else if (
    expiresAt === null ||
    expiresAt.getTime() <= (await now()).getTime() + transactionLimits.expiryLeadMsMin ||
    expiresAt.getTime() > transactionLimits.expiresAtMsMax
  )
    errors.expired = 'invalid';
  if (!hasUrlreturn) errors.urlreturn = 'is empty';
  return expiresAt;
}

/**
 * additional_parameters' own checks (reference §1.1): its size, its known keys' types, a payer_rut where the method
 * needs one, a payer_bank among the currency's banks.
 */
export async function checkAdditionalParameters(
  ctx: AppContext,
  params: Readonly<Record<string, unknown>> | null,
  sale: { readonly payment: number | null; readonly currency: string },
  errors: Errors,
): Promise<void> {
  if (params !== null) {
    if (JSON.stringify(params).length > limits.additionalParametersCharsMax)
      errors.additional_parameters = 'too long';
    for (const key of ['order_ext', 'payer_rut', 'payer_bank'] as const) {
      const v = params[key];
      if (v !== undefined && typeof v !== 'string' && typeof v !== 'number')
        errors[`additional_parameters.${key}`] = 'invalid';
    }
  }
  checkPayerRut(params?.payer_rut, sale.payment, errors);
  const payerBank = params?.payer_bank;
  if (payerBank === undefined || errors['additional_parameters.payer_bank'] !== undefined) return;
  const bank = await ctx.db
    .selectFrom('banks')
    .select('code')
    .where('currency', '=', sale.currency)
    .where('code', '=', String(payerBank))
    .executeTakeFirst();
  if (bank === undefined) errors['additional_parameters.payer_bank'] = 'invalid';
}

function checkPayerRut(payerRut: unknown, payment: number | null, errors: Errors): void {
  if (
    payment !== null &&
    payerRutRequired.has(payment) &&
    (payerRut === undefined || String(payerRut).trim() === '')
  ) {
    errors['additional_parameters.payer_rut'] = 'is empty';
  } else if (
    payerRut !== undefined &&
    errors['additional_parameters.payer_rut'] === undefined &&
    normaliseRut(String(payerRut)) === null
  ) {
    errors['additional_parameters.payer_rut'] = 'invalid';
  }
}

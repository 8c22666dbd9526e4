// Rules of the payout and withdrawal bodies that a schema cannot state: the currency and bank code must exist in
// the banks table, the account number is digits (decision 1175), Banco Estado numbers are short, and
// additional_parameters fits 4000 characters.
import type { Static } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import { validationError } from '../../platform/errors/errors.ts';
import { requestHash } from '../../platform/idempotency/canonical.ts';
import { checkCallbackUrl } from '../../platform/notifications/ssrf-guard.ts';
import { limits } from '../../limits/index.ts';
import { isBankAccountNumber } from '../../platform/ids/bank-account-number.ts';
import type { PayoutRequest } from './payout-plan.ts';
import { findBankAccount } from './repository.ts';
import { bankCodesByCurrency } from '../reference/repository.ts';
import { bancoEstadoCode, type PayoutCreateBody, type WithdrawBody } from './schemas.ts';

export async function knownCurrency(ctx: AppContext, text: string): Promise<string | null> {
  const currency = text.trim().toUpperCase();
  return (await bankCodesByCurrency(ctx)).has(currency) ? currency : null;
}

/** Checks an account destination; returns field problems in the seed's words. */
export async function destinationProblems(
  ctx: AppContext,
  currency: string,
  sbif: string,
  num: string,
): Promise<Record<string, string>> {
  const problems: Record<string, string> = {};
  if (!((await bankCodesByCurrency(ctx)).get(currency)?.has(sbif) ?? false))
    problems.accountbank_sbif = 'invalid';
  if (sbif === bancoEstadoCode && num.length > limits.bancoEstadoNumLengthMax)
    problems.accountbank_num = 'too long';
  return problems;
}

export async function payoutRequestFrom(
  ctx: AppContext,
  accountId: string,
  body: Static<typeof PayoutCreateBody>,
): Promise<PayoutRequest> {
  const problems: Record<string, string> = {};
  const currency = await knownCurrency(ctx, body.currency);
  if (currency === null) problems.currency = 'invalid';
  const sbif = body.accountbank_sbif.trim();
  const num = body.accountbank_num.trim();
  if (currency !== null)
    Object.assign(problems, await destinationProblems(ctx, currency, sbif, num));
  // What is no account number says so, whatever its length (decision 1175).
  if (num === '') problems.accountbank_num = 'is empty';
  else if (!isBankAccountNumber(num)) problems.accountbank_num = 'invalid';
  const additional =
    body.additional_parameters === undefined ? null : JSON.stringify(body.additional_parameters);
  if (additional !== null && additional.length > limits.additionalParametersCharsMax)
    problems.additional_parameters = 'too long';
  // A url_notify that could never be delivered is refused now, not discovered after ten failed attempts.
  if (body.url_notify !== undefined && !checkCallbackUrl(body.url_notify, ctx.config, accountId).ok)
    problems.url_notify = 'invalid';
  if (currency === null || Object.keys(problems).length > 0) throw validationError(problems);
  return {
    kind: 'payout',
    accountId,
    order: body.order,
    orderExt: body.order_ext ?? null,
    subject: body.subject,
    currency,
    amountMinor: BigInt(body.amount),
    destination: {
      email: body.email,
      phone: body.phone ?? '',
      accountbankName: body.accountbank_name,
      accountbankRut: body.accountbank_rut,
      accountbankSbif: sbif,
      accountbankType: body.accountbank_type as '1' | '2' | '3',
      accountbankNum: num,
    },
    urlNotify: body.url_notify ?? null,
    additionalParameters: additional,
    requestHash: requestHash({ ...body, currency }),
  };
}

export type WithdrawPreparation =
  | { ok: true; request: PayoutRequest }
  | { ok: false; currency: string };

/** A withdrawal pays the account's own bank account, set by an operator with `cobro accounts set-bank`. */
export async function withdrawRequestFrom(
  ctx: AppContext,
  accountId: string,
  body: Static<typeof WithdrawBody>,
): Promise<WithdrawPreparation> {
  const currency = await knownCurrency(ctx, body.currency);
  if (currency === null) throw validationError({ currency: 'invalid' });
  const bank = await findBankAccount(ctx.db, accountId);
  if (bank === undefined || bank.currency !== currency) {
    return { ok: false, currency };
  }
  return {
    ok: true,
    request: {
      kind: 'withdrawal',
      accountId,
      order: body.order,
      orderExt: null,
      subject: body.subject,
      currency,
      amountMinor: BigInt(body.amount),
      destination: {
        email: '',
        phone: '',
        accountbankName: bank.holder_name,
        accountbankRut: bank.rut,
        accountbankSbif: bank.sbif,
        accountbankType: bank.type,
        accountbankNum: bank.num,
      },
      urlNotify: null,
      additionalParameters: null,
      requestHash: requestHash({ ...body, currency }),
    },
  };
}

// The merchant's own bank account, where withdrawals go. Set by an operator (`cobro accounts set-bank`), checked
// with the same rules as a payout destination.
import type { AppContext } from '../../platform/context.ts';
import { findAccountRowById } from '../accounts/repository.ts';
import { destinationProblems, knownCurrency } from './payout-input.ts';
import { findBankAccount, upsertBankAccount, type BankAccountRow } from './repository.ts';
import { limits } from '../../limits/index.ts';
import { isBankAccountNumber } from '../../platform/ids/bank-account-number.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { recordDestinationChange } from '../accounts/destination-change.ts';

export interface BankAccountInput {
  readonly currency: string;
  readonly sbif: string;
  readonly type: string;
  readonly num: string;
  readonly rut: string;
  readonly holderName: string;
}

export type BankAccountResult = { ok: true; bank: BankAccountRow } | { ok: false; error: string };

/** A bank account as the operator typed it, trimmed and checked as a payout destination (messages name the CLI's options). */
export type CheckedBankAccount =
  | { ok: true; value: BankAccountInput & { readonly type: '1' | '2' | '3' } }
  | { ok: false; error: string };

export async function checkBankAccount(
  ctx: AppContext,
  input: BankAccountInput,
): Promise<CheckedBankAccount> {
  const currency = await knownCurrency(ctx, input.currency);
  if (currency === null) return { ok: false, error: `unknown currency ${input.currency}` };
  const type = input.type.trim();
  if (type !== '1' && type !== '2' && type !== '3')
    return { ok: false, error: '--type must be 1 (checking), 2 (vista/RUT) or 3 (savings)' };
  const num = input.num.trim();
  const rut = input.rut.trim();
  const holderName = input.holderName.trim();
  if (num === '' || num.length > limits.bankNumLengthMax)
    return { ok: false, error: `--num must have 1 to ${limits.bankNumLengthMax} characters` };
  if (!isBankAccountNumber(num))
    return {
      ok: false,
      error: '--num must be the digits 0-9, dashes only between them (no sign, point or space)',
    };
  if (rut === '' || rut.length > limits.bankRutLengthMax)
    return { ok: false, error: `--rut must have 1 to ${limits.bankRutLengthMax} characters` };
  if (holderName === '' || holderName.length > limits.bankHolderNameLengthMax)
    return {
      ok: false,
      error: `--name must have 1 to ${limits.bankHolderNameLengthMax} characters`,
    };
  const sbif = input.sbif.trim();
  const problems = await destinationProblems(ctx, currency, sbif, num);
  if (problems.accountbank_sbif !== undefined)
    return { ok: false, error: `unknown ${currency} bank code ${sbif}` };
  if (problems.accountbank_num !== undefined)
    return { ok: false, error: `Banco Estado account numbers have at most 12 characters` };
  return { ok: true, value: { currency, sbif, type, num, rut, holderName } };
}

export async function setBankAccount(
  ctx: AppContext,
  accountId: string,
  input: BankAccountInput,
): Promise<BankAccountResult> {
  if ((await findAccountRowById(ctx.db, accountId)) === undefined)
    return { ok: false, error: `no account with id ${accountId}` };
  const checked = await checkBankAccount(ctx, input);
  if (!checked.ok) return checked;
  const { currency, sbif, type, num, rut, holderName } = checked.value;
  // The change, its record and its callback commit together (decision 140).
  const bank = await inTransaction(ctx.db, async (tx) => {
    const txCtx: AppContext = { ...ctx, db: tx as unknown as AppContext['db'] };
    const before = await findBankAccount(tx, accountId);
    await upsertBankAccount(tx, {
      account_id: accountId,
      currency,
      sbif,
      type,
      num,
      rut,
      holder_name: holderName,
      updated_at: ctx.clock.now(),
    });
    const after = await findBankAccount(tx, accountId);
    if (after === undefined) throw new Error('bank account vanished after upsert');
    await recordDestinationChange(txCtx, tx, {
      accountId,
      subject: 'account_bank',
      subjectId: accountId,
      source: 'cli',
      previous:
        before === undefined
          ? null
          : { sbif: before.sbif, type: before.type, num: before.num, rut: before.rut },
      current: { sbif: after.sbif, type: after.type, num: after.num, rut: after.rut },
    });
    return after;
  });
  return { ok: true, bank };
}

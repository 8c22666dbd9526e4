import { limits } from '../../limits/index.ts';
import type { CreditResult } from '../../modules/wallet/wallet-credit.ts';
import {
  amountOptionMinor,
  amountOptionText,
  fail,
  ok,
  requireCtx,
  stringOption,
  type Command,
  type CommandArgs,
  type CommandOutput,
} from '../command.ts';
import { keyOption } from '../key-option.ts';
import { isOutput } from '../paging.ts';

const keyRequiredText =
  'wallet credit needs --key KEY (a ticket number): run again with the same key, the credit is found and not made twice';

interface AskedCredit {
  readonly accountId: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly key: string;
  readonly payDebt: boolean;
}

/**
 * What `wallet credit` prints: the credit made, or the one its key made before (decision 720), printed again as the
 * first run printed it; a key that made another credit (another amount or currency) is refused: nothing is credited.
 */
function creditOutput(
  credited: CreditResult,
  asked: AskedCredit,
  args: CommandArgs,
): CommandOutput {
  const { accountId, key } = asked;
  const what = `${credited.amountMinor} ${credited.currency}`;
  if (
    credited.already &&
    (credited.amountMinor !== asked.amountMinor || credited.currency !== asked.currency)
  )
    return fail(
      `--key ${key} credited ${what} to ${accountId} (movement ${credited.movementId}): use another key; nothing was credited`,
    );
  const paid =
    credited.debtPaidMinor > 0n ? `, chargeback debt paid ${credited.debtPaidMinor}` : '';
  const line = `credited ${what} to ${accountId}: movement ${credited.movementId}${paid}, available ${credited.balanceMinor}`;
  const output =
    args.values.json === true
      ? ok(
          JSON.stringify({
            identifier_wallet: credited.movementId,
            credit_id: credited.creditId,
            amount_available: credited.balanceMinor.toString(),
            currency: credited.currency,
            ...(asked.payDebt && !credited.already
              ? { debt_paid: credited.debtPaidMinor.toString() }
              : {}),
            ...(credited.already ? { already: true } : {}),
          }),
        )
      : ok(credited.already ? `already ${line} (--key ${key}); nothing credited now` : line);
  // The same key again credits nothing, so it writes no audit row either (decision 810), as `disputes open` does.
  return credited.already ? { ...output, unchanged: true } : output;
}

export const walletCredit: Command = {
  name: 'wallet credit',
  summary: 'Credit a merchant wallet (operator adjustment, ledger-backed)',
  usage:
    'cobro wallet credit --account ID --amount N --currency CLP --reason TEXT --key KEY [--pay-debt] [--json]',
  options: {
    account: {
      type: 'string',
      valueName: 'ID',
      description: 'the account whose wallet is credited (required)',
    },
    amount: {
      type: 'string',
      valueName: 'MINOR',
      description: 'a positive whole amount in minor units (required)',
    },
    currency: { type: 'string', description: 'the wallet currency (default CLP)' },
    reason: {
      type: 'string',
      valueName: 'TEXT',
      description: "the movement's subject, as the merchant sees it (required)",
    },
    key: {
      type: 'string',
      valueName: 'KEY',
      description:
        'names this credit (a ticket number; required): run again with it, the credit is found and printed, not made twice',
    },
    'pay-debt': {
      type: 'boolean',
      description:
        "pay the account's chargeback debt first from the credit, as money given back does (default: credited whole)",
    },
    json: {
      type: 'boolean',
      description:
        'print {identifier_wallet, credit_id, amount_available, currency}, and debt_paid with --pay-debt',
    },
  },
  examples: [
    'cobro wallet credit --account acc4f6c0e3d2b1a09876 --amount 25000 --currency CLP --reason "Saldo inicial" --key TICKET-118',
    'cobro wallet credit --account acc4f6c0e3d2b1a09876 --amount 10000 --currency CLP --reason "Pago devuelto" --key TICKET-119 --pay-debt',
  ],
  needsDb: true,
  async run(ctxOrNull, args) {
    const ctx = requireCtx(ctxOrNull);
    const accountId = stringOption(args, 'account');
    const amountText = stringOption(args, 'amount');
    const reason = stringOption(args, 'reason')?.trim();
    if (accountId === undefined || amountText === undefined || reason === undefined)
      return fail(`usage: ${this.usage}`, 2);
    const amountMinor = amountOptionMinor(amountText);
    if (amountMinor === null) return fail(amountOptionText, 2);
    if (reason === '' || reason.length > limits.walletCreditReasonLengthMax)
      return fail(`--reason must have 1 to ${limits.walletCreditReasonLengthMax} characters`, 2);
    // Required (decision 1155): without a key a credit run again after a lost terminal credited twice.
    const key = keyOption(args, limits.walletCreditKeyLengthMax);
    if (isOutput(key)) return key;
    if (key === undefined) return fail(keyRequiredText, 2);
    const [{ findAccountRowById }, { knownCurrency }, { creditWallet }] = await Promise.all([
      import('../../modules/accounts/repository.ts'),
      import('../../modules/wallet/payout-input.ts'),
      import('../../modules/wallet/wallet-credit.ts'),
    ]);
    const currency = await knownCurrency(ctx, stringOption(args, 'currency') ?? 'CLP');
    if (currency === null) return fail(`unknown currency ${stringOption(args, 'currency')}`, 2);
    if ((await findAccountRowById(ctx.db, accountId)) === undefined)
      return fail(`no account with id ${accountId}`);
    const payDebt = args.values['pay-debt'] === true;
    const credited = await creditWallet(ctx, {
      accountId,
      currency,
      amountMinor,
      reason,
      kind: 'adjustment',
      payDebt,
      operatorKey: key,
    });
    if (credited === null)
      return fail(
        `the credit would take the ${currency} wallet over its maximum balance; nothing was credited`,
        2,
      );
    return creditOutput(credited, { accountId, amountMinor, currency, key, payDebt }, args);
  },
};

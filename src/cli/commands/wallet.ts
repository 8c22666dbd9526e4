import { limits } from '../../limits/index.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

export const walletCredit: Command = {
  name: 'wallet credit',
  summary: 'Credit a merchant wallet (operator adjustment, ledger-backed)',
  usage: 'cobro wallet credit --account ID --amount N --currency CLP --reason TEXT [--json]',
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
    json: {
      type: 'boolean',
      description: 'print {identifier_wallet, credit_id, amount_available, currency}',
    },
  },
  examples: [
    'cobro wallet credit --account acc4f6c0e3d2b1a09876 --amount 25000 --currency CLP --reason "Saldo inicial"',
  ],
  needsDb: true,
  async run(ctxOrNull, args) {
    const ctx = requireCtx(ctxOrNull);
    const accountId = stringOption(args, 'account');
    const amountText = stringOption(args, 'amount');
    const reason = stringOption(args, 'reason')?.trim();
    if (accountId === undefined || amountText === undefined || reason === undefined)
      return fail(`usage: ${this.usage}`, 2);
    if (
      !/^\d{1,14}$/.test(amountText) ||
      BigInt(amountText) === 0n ||
      BigInt(amountText) > limits.amountMinorMax
    ) {
      return fail('--amount must be a positive integer of at most 14 digits, in minor units', 2);
    }
    if (reason === '' || reason.length > limits.walletCreditReasonLengthMax)
      return fail(`--reason must have 1 to ${limits.walletCreditReasonLengthMax} characters`, 2);
    const [{ findAccountRowById }, { knownCurrency }, { creditWallet }] = await Promise.all([
      import('../../modules/accounts/repository.ts'),
      import('../../modules/wallet/payout-input.ts'),
      import('../../modules/wallet/wallet-credit.ts'),
    ]);
    const currency = await knownCurrency(ctx, stringOption(args, 'currency') ?? 'CLP');
    if (currency === null) return fail(`unknown currency ${stringOption(args, 'currency')}`, 2);
    if ((await findAccountRowById(ctx.db, accountId)) === undefined)
      return fail(`no account with id ${accountId}`);
    const credited = await creditWallet(ctx, {
      accountId,
      currency,
      amountMinor: BigInt(amountText),
      reason,
      kind: 'adjustment',
    });
    if (credited === null)
      return fail(
        `the credit would take the ${currency} wallet over its maximum balance; nothing was credited`,
        2,
      );
    if (args.values.json === true) {
      return ok(
        JSON.stringify({
          identifier_wallet: credited.movementId,
          credit_id: credited.creditId,
          amount_available: credited.balanceMinor.toString(),
          currency,
        }),
      );
    }
    return ok(
      `credited ${amountText} ${currency} to ${accountId}: movement ${credited.movementId}, available ${credited.balanceMinor}`,
    );
  },
};

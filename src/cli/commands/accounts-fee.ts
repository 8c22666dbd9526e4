// `cobro accounts set-fee`: the service fee an account pays per payment method (supplement §4.3).
import { limits } from '../../limits/index.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

function formatPercent(bp: number): string {
  return `${Math.floor(bp / 100)}.${String(bp % 100).padStart(2, '0')}`;
}

export const accountsSetFee: Command = {
  name: 'accounts set-fee',
  summary: 'Set the fee an account pays per payment method (percent plus fixed minor units)',
  usage: 'cobro accounts set-fee ID --payment N [--percent 2.95] [--fixed 0]',
  options: {
    payment: {
      type: 'string',
      valueName: 'N',
      description: 'the payment method code, as in the seed (1 Webpay, 4 Servipag, ...) (required)',
    },
    percent: {
      type: 'string',
      valueName: 'PERCENT',
      description: 'the percentage of each payment, at most two decimals (default 0)',
    },
    fixed: {
      type: 'string',
      valueName: 'MINOR',
      description: 'a fixed amount per payment in minor units (default 0)',
    },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: ['cobro accounts set-fee acc4f6c0e3d2b1a09876 --payment 1 --percent 2.95 --fixed 0'],
  needsDb: true,
  async run(ctx, args) {
    const c = requireCtx(ctx);
    const [{ findAccountRowById }, { parsePercentBp, setFeeRule }] = await Promise.all([
      import('../../modules/accounts/repository.ts'),
      import('../../modules/transactions/fees.ts'),
    ]);
    const id = args.positionals[0];
    if (id === undefined)
      return fail('usage: cobro accounts set-fee ID --payment N [--percent 2.95] [--fixed 0]', 2);
    const paymentText = stringOption(args, 'payment');
    if (paymentText === undefined || !/^\d{1,3}$/.test(paymentText))
      return fail('--payment must be a payment method code such as 1 or 4', 2);
    const percentBp = parsePercentBp(stringOption(args, 'percent') ?? '0');
    if (percentBp === null)
      return fail(
        '--percent must be a number from 0 to 100 with at most two decimals, e.g. 2.95',
        2,
      );
    const fixedText = stringOption(args, 'fixed') ?? '0';
    if (!/^\d{1,14}$/.test(fixedText))
      return fail('--fixed must be a whole amount in minor units (at most 14 digits)', 2);
    const fixedMinor = BigInt(fixedText);
    if (fixedMinor > limits.amountMinorMax) return fail('--fixed is too large', 2);
    if ((await findAccountRowById(c.db, id)) === undefined) return fail(`no account with id ${id}`);
    const payment = Number(paymentText);
    const known = await c.db
      .selectFrom('payment_methods')
      .select('payment')
      .where('payment', '=', payment)
      .executeTakeFirst();
    if (known === undefined) return fail(`no payment method with code ${payment}`);
    await setFeeRule(c.db, id, payment, { percentBp, fixedMinor }, c.clock.now());
    return ok(`fee for ${id} on payment ${payment}: ${formatPercent(percentBp)}% + ${fixedMinor}`);
  },
};

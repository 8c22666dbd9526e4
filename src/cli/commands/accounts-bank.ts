import { setBankAccount } from '../../modules/wallet/bank-account.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

export const accountsSetBank: Command = {
  name: 'accounts set-bank',
  summary: 'Set the bank account that receives the account\'s withdrawals',
  usage: 'cobro accounts set-bank ID --sbif 0001 --type 1 --num 123 --rut 111111111 --name "Holder" [--currency CLP]',
  options: {
    sbif: { type: 'string' }, type: { type: 'string' }, num: { type: 'string' }, rut: { type: 'string' },
    name: { type: 'string' }, currency: { type: 'string' }, json: { type: 'boolean' },
  },
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    const [sbif, type, num, rut, name] = ['sbif', 'type', 'num', 'rut', 'name'].map((o) => stringOption(args, o));
    if (id === undefined || sbif === undefined || type === undefined || num === undefined || rut === undefined || name === undefined) {
      return fail(`usage: ${this.usage}`, 2);
    }
    const result = await setBankAccount(requireCtx(ctx), id, { currency: stringOption(args, 'currency') ?? 'CLP', sbif, type, num, rut, holderName: name });
    if (!result.ok) return fail(result.error, 2);
    const b = result.bank;
    if (args.values.json === true) {
      return ok(JSON.stringify({ account_id: b.account_id, currency: b.currency, sbif: b.sbif, type: b.type, num: b.num, rut: b.rut, name: b.holder_name }));
    }
    return ok(`withdrawals of ${b.account_id} go to ${b.currency} bank ${b.sbif}, type ${b.type}, account ${b.num}, ${b.holder_name} (${b.rut})`);
  },
};

// `cobro accounts set-bank`, and the bank account options it shares with `cobro refunds set-bank-details`.
import {
  fail,
  ok,
  requireCtx,
  stringOption,
  type CommandArgs,
  type Command,
  type OptionSpec,
} from '../command.ts';

/** A bank account's options, checked by the service as a payout destination (wallet/bank-account.ts). */
export const bankAccountOptions = {
  sbif: {
    type: 'string',
    valueName: 'CODE',
    description: 'the bank code, as in GET /api/banks (required)',
  },
  type: {
    type: 'string',
    valueName: '1|2|3',
    description: 'the account type: 1 checking, 2 sight (vista), 3 savings (required)',
  },
  num: {
    type: 'string',
    valueName: 'NUMBER',
    description: 'the account number, at most 12 digits at Banco Estado (required)',
  },
  rut: {
    type: 'string',
    description: "the holder's RUT, digits and check digit without dots or dash (required)",
  },
  name: { type: 'string', valueName: 'HOLDER', description: "the holder's name (required)" },
} as const satisfies OptionSpec;

/** The bank account options as the service takes them, or undefined when one is missing. */
export function bankAccountArgs(
  args: CommandArgs,
): { sbif: string; type: string; num: string; rut: string; holderName: string } | undefined {
  const [sbif, type, num, rut, holderName] = ['sbif', 'type', 'num', 'rut', 'name'].map((o) =>
    stringOption(args, o),
  );
  if (
    sbif === undefined ||
    type === undefined ||
    num === undefined ||
    rut === undefined ||
    holderName === undefined
  )
    return undefined;
  return { sbif, type, num, rut, holderName };
}

export const accountsSetBank: Command = {
  name: 'accounts set-bank',
  summary: "Set the bank account that receives the account's withdrawals",
  usage:
    'cobro accounts set-bank ID --sbif 0001 --type 1 --num 123 --rut 111111111 --name "Holder" [--currency CLP] [--json]',
  options: {
    ...bankAccountOptions,
    currency: { type: 'string', description: 'the currency the account receives (default CLP)' },
    json: { type: 'boolean', description: 'print the bank account as one JSON object' },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: [
    'cobro accounts set-bank acc4f6c0e3d2b1a09876 --sbif 0001 --type 1 --num 123456 --rut 111111111 --name "Tienda Uno SpA"',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    const bank = bankAccountArgs(args);
    if (id === undefined || bank === undefined) return fail(`usage: ${this.usage}`, 2);
    const { setBankAccount } = await import('../../modules/wallet/bank-account.ts');
    const result = await setBankAccount(requireCtx(ctx), id, {
      currency: stringOption(args, 'currency') ?? 'CLP',
      ...bank,
    });
    if (!result.ok) return fail(result.error, 2);
    const b = result.bank;
    if (args.values.json === true) {
      return ok(
        JSON.stringify({
          account_id: b.account_id,
          currency: b.currency,
          sbif: b.sbif,
          type: b.type,
          num: b.num,
          rut: b.rut,
          name: b.holder_name,
        }),
      );
    }
    return ok(
      `withdrawals of ${b.account_id} go to ${b.currency} bank ${b.sbif}, type ${b.type}, account ${b.num}, ${b.holder_name} (${b.rut})`,
    );
  },
};

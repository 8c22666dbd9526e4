import { fail, ok, requireCtx, type Command } from '../command.ts';

export const ledgerVerify: Command = {
  name: 'ledger verify',
  summary:
    'Recompute every balance and running balance from the postings; exit 1 naming the first fault',
  usage: 'cobro ledger verify [--json]',
  options: {
    json: {
      type: 'boolean',
      description: 'print the result as JSON ({ok, accounts, journals} or {ok, fault})',
    },
  },
  examples: [
    'cobro ledger verify',
    'DATABASE_URL=postgres://cobro@db/cobro cobro ledger verify --json',
  ],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const { verifyLedger } = await import('../../platform/ledger/verify.ts');
    const result = await verifyLedger(requireCtx(ctx).db);
    if (args.values.json === true) {
      const text = JSON.stringify(result);
      return result.ok ? ok(text) : { exitCode: 1, stdout: `${text}\n`, stderr: '' };
    }
    if (!result.ok) return fail(`ledger fault: ${result.fault}`);
    return ok(`ledger clean: ${result.accounts} accounts, ${result.journals} journals balance`);
  },
};

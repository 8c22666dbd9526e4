// Operator command of decision 140: strict signing (the account's callback URLs: accounts-urls.ts).
import { fail, ok, requireCtx, type Command } from '../command.ts';

export const accountsRequireStrictSigning: Command = {
  name: 'accounts require-strict-signing',
  summary: 'Require a valid Cobro-Signature on every request of the account (--off lifts it)',
  usage: 'cobro accounts require-strict-signing ID [--off] [--json]',
  options: {
    off: {
      type: 'boolean',
      description: 'stop requiring it (a Cobro-Signature sent is still checked)',
    },
    json: { type: 'boolean', description: 'print the account id and the flag as one JSON object' },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: [
    'cobro accounts require-strict-signing acc4f6c0e3d2b1a09876',
    'cobro accounts require-strict-signing acc4f6c0e3d2b1a09876 --off',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail(`usage: ${this.usage}`, 2);
    const { setStrictSigning } = await import('../../modules/accounts/strict-signing.ts');
    const result = await setStrictSigning(requireCtx(ctx), id, args.values.off !== true);
    if (!result.ok) return fail(result.error);
    const { strictSigning } = result.value;
    if (args.values.json === true) return ok(JSON.stringify({ id, strict_signing: strictSigning }));
    return ok(
      strictSigning
        ? `${id} now requires Cobro-Signature on every request; requests without it answer 401 waiting Cobro-Signature`
        : `${id} accepts requests without Cobro-Signature again (a Cobro-Signature sent is still checked)`,
    );
  },
};

// The operator's escrow flag (decision 115, docs/escrow.md).
import { fail, ok, requireCtx, type Command } from '../command.ts';

export const accountsSetEscrow: Command = {
  name: 'accounts set-escrow',
  summary:
    "Hold the account's settled sales until it releases them with POST /api/escrow (--off stops holding)",
  usage: 'cobro accounts set-escrow ID [--off] [--json]',
  options: {
    off: {
      type: 'boolean',
      description: 'settle to the wallet again; refused while the account still holds sales',
    },
    json: {
      type: 'boolean',
      description: 'print the account id, the flag and the sales still held as one JSON object',
    },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: [
    'cobro accounts set-escrow acc4f6c0e3d2b1a09876',
    'cobro accounts set-escrow acc4f6c0e3d2b1a09876 --off',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail(`usage: ${this.usage}`, 2);
    const { setEscrow } = await import('../../modules/escrow/flag.ts');
    const result = await setEscrow(requireCtx(ctx), id, args.values.off !== true);
    if (!result.ok) return fail(result.error);
    const { escrow, heldCount } = result.value;
    if (args.values.json === true) return ok(JSON.stringify({ id, escrow, held: heldCount }));
    return ok(
      escrow
        ? `${id} is escrow: its sales settle into escrow_held until released with POST /api/escrow (${heldCount} held now)`
        : `${id} is not escrow: its sales settle to the wallet`,
    );
  },
};

// Operator commands of decision 140: strict signing, and the URL that hears of changes to where money goes.
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

export const accountsRequireStrictSigning: Command = {
  name: 'accounts require-strict-signing',
  summary: 'Require a valid Cobro-Signature on every request of the account (--off lifts it)',
  usage: 'cobro accounts require-strict-signing ID [--off] [--json]',
  options: {
    off: { type: 'boolean', description: 'stop requiring it (a Cobro-Signature sent is still checked)' },
    json: { type: 'boolean', description: 'print the account id and the flag as one JSON object' },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: ['cobro accounts require-strict-signing acc4f6c0e3d2b1a09876', 'cobro accounts require-strict-signing acc4f6c0e3d2b1a09876 --off'],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail(`usage: ${this.usage}`, 2);
    const { setStrictSigning } = await import('../../modules/accounts/strict-signing.ts');
    const result = await setStrictSigning(requireCtx(ctx), id, args.values.off !== true);
    if (!result.ok) return fail(result.error);
    const { strictSigning } = result.value;
    if (args.values.json === true) return ok(JSON.stringify({ id, strict_signing: strictSigning }));
    return ok(strictSigning
      ? `${id} now requires Cobro-Signature on every request; requests without it answer 401 waiting Cobro-Signature`
      : `${id} accepts requests without Cobro-Signature again (a Cobro-Signature sent is still checked)`);
  },
};

export const accountsSetNotifyUrl: Command = {
  name: 'accounts set-notify-url',
  summary: 'Set the URL that receives the account\'s own callbacks (a bank account changed); --clear removes it',
  usage: 'cobro accounts set-notify-url ID (--url URL | --clear) [--json]',
  options: {
    url: { type: 'string', description: 'an http or https URL of at most 600 characters' },
    clear: { type: 'boolean', description: 'send no account callbacks (changes are still recorded)' },
    json: { type: 'boolean', description: 'print the account id and the URL as one JSON object' },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: ['cobro accounts set-notify-url acc4f6c0e3d2b1a09876 --url https://shop.example.com/cobro/account-events'],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    const url = stringOption(args, 'url');
    const clear = args.values.clear === true;
    if (id === undefined || (url === undefined) === !clear) return fail(`usage: ${this.usage}`, 2);
    const { setNotifyUrl } = await import('../../modules/accounts/strict-signing.ts');
    const result = await setNotifyUrl(requireCtx(ctx), id, clear ? null : url ?? null);
    if (!result.ok) return fail(result.error, 2);
    if (args.values.json === true) return ok(JSON.stringify({ id, notify_url: result.value.notifyUrl }));
    return ok(result.value.notifyUrl === null ? `${id} sends no account callbacks` : `account callbacks of ${id} go to ${result.value.notifyUrl}`);
  },
};

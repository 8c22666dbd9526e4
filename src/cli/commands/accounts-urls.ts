// The account's own callback URLs (decision 111): `set-urls` sets any of them; `set-notify-url`, older, is the
// same command for the notify URL alone. Both run `setAccountUrls`, so both check a URL the same way.
import type { AppContext } from '../../platform/context.ts';
import type { AccountUrlChanges, AccountUrls } from '../../modules/accounts/callback-urls.ts';
import {
  fail,
  ok,
  requireCtx,
  stringOption,
  type CommandArgs,
  type CommandOutput,
  type Command,
} from '../command.ts';

/** `--NAME-url URL` sets, `--clear-NAME-url` clears, neither leaves; both at once is a usage error (undefined). */
function change(
  args: CommandArgs,
  urlOption: string,
  clearOption: string,
): string | null | undefined | 'both' {
  const url = stringOption(args, urlOption);
  const clear = args.values[clearOption] === true;
  if (url !== undefined && clear) return 'both';
  return clear ? null : url;
}

type Urls = AccountUrls;

/** Sets the changes; prints `json(urls)` with the id when given, else both URLs as text. */
async function apply(
  ctx: AppContext | null,
  id: string,
  changes: AccountUrlChanges,
  json: ((urls: Urls) => object) | null,
): Promise<CommandOutput> {
  const { setAccountUrls } = await import('../../modules/accounts/callback-urls.ts');
  const result = await setAccountUrls(requireCtx(ctx), id, changes);
  if (!result.ok) return fail(result.error, 2);
  return ok(
    json !== null
      ? JSON.stringify({ id, ...json(result.value) })
      : [
          `${id}: account callbacks (destination.changed) go to ${result.value.notify ?? 'nowhere'}`,
          `${id}: nullification callbacks (nullification.result) go to ${result.value.nullification ?? 'nowhere'}`,
        ].join('\n'),
  );
}

const urlsJson = (urls: Urls) => ({
  notify_url: urls.notify,
  nullification_url: urls.nullification,
});

export const accountsSetUrls: Command = {
  name: 'accounts set-urls',
  summary:
    "Set or clear the account's callback URLs: account events (--notify-url) and refunds (--nullification-url)",
  usage:
    'cobro accounts set-urls ID [--notify-url URL | --clear-notify-url] [--nullification-url URL | --clear-nullification-url] [--json]',
  options: {
    'notify-url': {
      type: 'string',
      valueName: 'URL',
      description: 'where destination.changed callbacks go (a bank account changed)',
    },
    'clear-notify-url': {
      type: 'boolean',
      description: 'send no destination.changed callbacks (changes are still recorded)',
    },
    'nullification-url': {
      type: 'string',
      valueName: 'URL',
      description: 'where nullification.result callbacks go (each state of a refund)',
    },
    'clear-nullification-url': { type: 'boolean', description: 'send no nullification callbacks' },
    json: { type: 'boolean', description: 'print the account id and both URLs as one JSON object' },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: [
    'cobro accounts set-urls acc4f6c0e3d2b1a09876 --nullification-url https://shop.example.com/cobro/refunds',
    'cobro accounts set-urls acc4f6c0e3d2b1a09876 --notify-url https://shop.example.com/cobro/events --clear-nullification-url',
    'cobro accounts set-urls acc4f6c0e3d2b1a09876 --json',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    const notify = change(args, 'notify-url', 'clear-notify-url');
    const nullification = change(args, 'nullification-url', 'clear-nullification-url');
    if (id === undefined || notify === 'both' || nullification === 'both')
      return fail(`usage: ${this.usage}`, 2);
    const changes: AccountUrlChanges = {
      ...(notify !== undefined ? { notify } : {}),
      ...(nullification !== undefined ? { nullification } : {}),
    };
    return apply(ctx, id, changes, args.values.json === true ? urlsJson : null);
  },
};

export const accountsSetNotifyUrl: Command = {
  name: 'accounts set-notify-url',
  summary:
    "Set the URL that receives the account's own callbacks (a bank account changed); same as set-urls --notify-url",
  usage: 'cobro accounts set-notify-url ID (--url URL | --clear) [--json]',
  options: {
    url: {
      type: 'string',
      description: 'an http or https URL of at most 600 characters (https only in production)',
    },
    clear: {
      type: 'boolean',
      description: 'send no account callbacks (changes are still recorded)',
    },
    json: { type: 'boolean', description: 'print the account id and the URL as one JSON object' },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: [
    'cobro accounts set-notify-url acc4f6c0e3d2b1a09876 --url https://shop.example.com/cobro/account-events',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    const notify = change(args, 'url', 'clear');
    if (id === undefined || notify === undefined || notify === 'both')
      return fail(`usage: ${this.usage}`, 2);
    return apply(
      ctx,
      id,
      { notify },
      args.values.json === true ? (urls) => ({ notify_url: urls.notify }) : null,
    );
  },
};

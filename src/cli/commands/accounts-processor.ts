// `cobro accounts set-processor`: the account's own card acquirer in production (issue 15): Webpay Plus keys,
// the API key sealed under COBRO_SECRET_KEY like the other secrets and never printed back.
import type { AppContext } from '../../platform/context.ts';
import {
  fail,
  ok,
  requireCtx,
  stringOption,
  type Command,
  type CommandArgs,
  type CommandOutput,
} from '../command.ts';
import {
  hasOneclickOptions,
  oneclickOptions,
  oneclickUsage,
  oneclickFromArgs,
  saveOneclick,
} from './oneclick-options.ts';
import { fintocProcessorOptions, setFintoc, wantsFintoc } from './accounts-processor-fintoc.ts';

export const accountsSetProcessor: Command = {
  name: 'accounts set-processor',
  summary:
    'Set the Webpay Plus (card payments), Oneclick Mall (subscriptions) or Fintoc (bank transfers, payouts) keys of an account in production',
  usage: `cobro accounts set-processor ID [--webpay-commerce-code C --webpay-api-key K] ${oneclickUsage} [--environment integration|production|URL] [--json]\n       cobro accounts set-processor ID --fintoc-secret-key K --fintoc-webhook-secret S [--fintoc-jws-key-file FILE --fintoc-account ID] [--environment production|URL] [--json]`,
  options: {
    'webpay-commerce-code': {
      type: 'string',
      valueName: 'CODE',
      description: "Transbank's 12-digit Webpay Plus commerce code",
    },
    'webpay-api-key': {
      type: 'string',
      valueName: 'KEY',
      description: "Webpay Plus's API key (Tbk-Api-Key-Secret), stored encrypted",
    },
    ...oneclickOptions,
    environment: {
      type: 'string',
      valueName: 'ENV',
      description: 'integration, production (default) or the http(s) URL of a Transbank REST host',
    },
    ...fintocProcessorOptions,
    json: { type: 'boolean', description: 'print the result as JSON' },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: [
    'cobro accounts set-processor acc4f6c0e3d2b1a09876 --webpay-commerce-code 597055555532 --webpay-api-key 579B532A... --environment integration',
    'cobro accounts set-processor acc4f6c0e3d2b1a09876 --oneclick-commerce-code 597055555541 --oneclick-child-commerce-code 597055555542 --oneclick-api-key 579B532A... --environment integration',
  ],
  needsDb: true,
  async run(ctx, args) {
    const c = requireCtx(ctx);
    if (wantsFintoc(args)) return setFintoc(c, args, args.positionals[0]);
    const [{ findAccountRowById }, { checkWebpaySettings, saveWebpaySettings }] = await Promise.all(
      [
        import('../../modules/accounts/repository.ts'),
        import('../../platform/processors/account-processors.ts'),
      ],
    );
    const id = args.positionals[0];
    const commerceCode = stringOption(args, 'webpay-commerce-code');
    const apiKey = stringOption(args, 'webpay-api-key');
    const webpay = commerceCode !== undefined || apiKey !== undefined;
    if (id === undefined || (!webpay && !hasOneclickOptions(args)))
      return fail(`usage: ${this.usage}`, 2);
    if (!webpay) return setOneclickOnly(c, args, id);
    if (commerceCode === undefined || apiKey === undefined) return fail(`usage: ${this.usage}`, 2);
    const settings = {
      commerceCode,
      apiKey,
      environment: stringOption(args, 'environment') ?? 'production',
    };
    const checked = checkWebpaySettings(settings);
    if (!checked.ok) return fail(checked.error, 2);
    const oneclick = hasOneclickOptions(args)
      ? await oneclickFromArgs(args, settings.environment)
      : null;
    if (oneclick?.ok === false) return fail(oneclick.error, 2);
    if ((await findAccountRowById(c.db, id)) === undefined) return fail(`no account with id ${id}`);
    await saveWebpaySettings(c, id, settings, c.clock.now());
    const oneclickLine = oneclick === null ? null : await saveOneclick(c, id, oneclick.settings);
    const note =
      c.config.mode === 'production'
        ? ''
        : ' (used in production mode only; this deployment is in sandbox mode)';
    if (args.values.json === true) {
      return ok(
        JSON.stringify({
          account_id: id,
          processor: 'webpay_plus',
          commerce_code: commerceCode,
          environment: settings.environment,
        }),
      );
    }
    return ok(
      `card payments of ${id} go through Webpay Plus, commerce code ${commerceCode}, environment ${settings.environment}${note}${oneclickLine === null ? '' : `\n${oneclickLine}${note}`}`,
    );
  },
};

/** Only the Oneclick keys given: the Webpay Plus ones stay as they are. */
async function setOneclickOnly(
  c: AppContext,
  args: CommandArgs,
  id: string,
): Promise<CommandOutput> {
  const { findAccountRowById } = await import('../../modules/accounts/repository.ts');
  if ((await findAccountRowById(c.db, id)) === undefined) return fail(`no account with id ${id}`);
  const environment = stringOption(args, 'environment') ?? 'production';
  const checked = await oneclickFromArgs(args, environment);
  if (!checked.ok) return fail(checked.error, 2);
  const line = await saveOneclick(c, id, checked.settings);
  if (args.values.json === true)
    return ok(JSON.stringify({ account_id: id, processor: 'oneclick_mall', environment }));
  const note = c.config.mode === 'production' ? '' : ' (used in production mode only)';
  return ok(`${line}${note}`);
}

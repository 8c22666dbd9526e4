// The Oneclick Mall part of `cobro accounts set-processor` (issue 33): the keys that enrol and charge the stored
// cards of an account's subscriptions in production, the API key sealed like the Webpay Plus one.
import type { AppContext } from '../../platform/context.ts';
import type { OneclickSettings } from '../../platform/processors/oneclick-settings.ts';
import { stringOption, type CommandArgs, type OptionSpec } from '../command.ts';

export const oneclickOptions: OptionSpec = {
  'oneclick-commerce-code': {
    type: 'string',
    valueName: 'CODE',
    description: "Transbank's 12-digit Oneclick Mall commerce code (subscriptions' stored cards)",
  },
  'oneclick-child-commerce-code': {
    type: 'string',
    valueName: 'CODE',
    description: "the 12-digit commerce code of the Oneclick Mall's store that charges",
  },
  'oneclick-api-key': {
    type: 'string',
    valueName: 'KEY',
    description: "Oneclick Mall's API key (Tbk-Api-Key-Secret), stored encrypted",
  },
};

export const oneclickUsage =
  '[--oneclick-commerce-code C --oneclick-child-commerce-code C2 --oneclick-api-key K]';

/** Whether any Oneclick option was given (then all three are required). */
export function hasOneclickOptions(args: CommandArgs): boolean {
  return Object.keys(oneclickOptions).some((name) => stringOption(args, name) !== undefined);
}

/** The Oneclick keys the options give, checked: the settings to store, or the error the command fails with. */
export async function oneclickFromArgs(
  args: CommandArgs,
  environment: string,
): Promise<{ ok: true; settings: OneclickSettings } | { ok: false; error: string }> {
  const { checkOneclickSettings } = await import('../../platform/processors/oneclick-settings.ts');
  const commerceCode = stringOption(args, 'oneclick-commerce-code');
  const childCommerceCode = stringOption(args, 'oneclick-child-commerce-code');
  const apiKey = stringOption(args, 'oneclick-api-key');
  if (commerceCode === undefined || childCommerceCode === undefined || apiKey === undefined)
    return {
      ok: false,
      error: `--oneclick-commerce-code, --oneclick-child-commerce-code and --oneclick-api-key go together`,
    };
  const settings = { commerceCode, childCommerceCode, apiKey, environment };
  const checked = checkOneclickSettings(settings);
  return checked.ok ? { ok: true, settings } : checked;
}

/** Stores checked Oneclick keys: the line the command prints. */
export async function saveOneclick(
  ctx: AppContext,
  accountId: string,
  s: OneclickSettings,
): Promise<string> {
  const { saveOneclickSettings } = await import('../../platform/processors/oneclick-settings.ts');
  await saveOneclickSettings(ctx, accountId, s, ctx.clock.now());
  return `subscriptions' stored cards of ${accountId} go through Oneclick Mall, commerce code ${s.commerceCode}, store ${s.childCommerceCode}, environment ${s.environment}`;
}

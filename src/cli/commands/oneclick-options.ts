// The Oneclick Mall part of `cobro accounts set-processor` (issue 33): the keys that enrol and charge the stored
// cards of an account's subscriptions in production, the API key sealed like the Webpay Plus one.
import type { AppContext } from '../../platform/context.ts';
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

/** Checks and stores the Oneclick keys: the line the command prints, or the error it fails with. */
export async function setOneclick(
  ctx: AppContext,
  args: CommandArgs,
  accountId: string,
  environment: string,
): Promise<{ ok: true; line: string } | { ok: false; error: string }> {
  const { checkOneclickSettings, saveOneclickSettings } = await import(
    '../../platform/processors/oneclick-settings.ts'
  );
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
  if (!checked.ok) return checked;
  await saveOneclickSettings(ctx, accountId, settings, ctx.clock.now());
  return {
    ok: true,
    line: `subscriptions' stored cards of ${accountId} go through Oneclick Mall, commerce code ${commerceCode}, store ${childCommerceCode}, environment ${environment}`,
  };
}

// The Fintoc options of `cobro accounts set-processor` (issue 34): the account's Fintoc secret key and webhook
// secret (and, for payouts, the JWS private key and the Fintoc account transfers leave from), each secret sealed
// under COBRO_SECRET_KEY and never printed back. Kept apart from the Webpay options so each processor's options
// live in a file of their own.
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../../platform/context.ts';
import { fintocLimits } from '../../limits/index.ts';
import {
  fail,
  ok,
  stringOption,
  type CommandArgs,
  type CommandOutput,
  type OptionSpec,
} from '../command.ts';

export const fintocProcessorOptions: OptionSpec = {
  'fintoc-secret-key': {
    type: 'string',
    valueName: 'KEY',
    description:
      "Fintoc's secret key (sk_live_...), stored encrypted: bank transfers through Fintoc",
  },
  'fintoc-webhook-secret': {
    type: 'string',
    valueName: 'SECRET',
    description:
      "the Fintoc webhook endpoint's secret, stored encrypted (required with --fintoc-secret-key)",
  },
  'fintoc-jws-key-file': {
    type: 'string',
    valueName: 'FILE',
    description:
      'absolute path of the PEM private key whose public half is registered at Fintoc (JWS): payouts as Fintoc transfers',
  },
  'fintoc-account': {
    type: 'string',
    valueName: 'ID',
    description:
      'the Fintoc account (acc_...) transfers leave from and whose movements are reconciled',
  },
};

/** Whether the command was given Fintoc options (then it sets Fintoc, not Webpay). */
export function wantsFintoc(args: CommandArgs): boolean {
  return Object.keys(fintocProcessorOptions).some((name) => stringOption(args, name) !== undefined);
}

export async function setFintoc(
  c: AppContext,
  args: CommandArgs,
  id: string | undefined,
): Promise<CommandOutput> {
  const [{ findAccountRowById }, { checkFintocSettings, saveFintocSettings }] = await Promise.all([
    import('../../modules/accounts/repository.ts'),
    import('../../platform/processors/fintoc-settings.ts'),
  ]);
  const secretKey = stringOption(args, 'fintoc-secret-key');
  const webhookSecret = stringOption(args, 'fintoc-webhook-secret');
  if (id === undefined || secretKey === undefined || webhookSecret === undefined)
    return fail(
      'usage: cobro accounts set-processor ID --fintoc-secret-key K --fintoc-webhook-secret S [--fintoc-jws-key-file FILE --fintoc-account ID] [--environment production|URL]',
      2,
    );
  const keyFile = stringOption(args, 'fintoc-jws-key-file');
  let jwsPrivateKey: string | null = null;
  if (keyFile !== undefined) {
    // The command may run inside `cobro serve` (decision 001), whose working directory is not the operator's.
    if (!path.isAbsolute(keyFile)) return fail('--fintoc-jws-key-file must be an absolute path', 2);
    try {
      jwsPrivateKey = fs.readFileSync(keyFile, 'utf8').slice(0, fintocLimits.jwsKeyLengthMax + 1);
    } catch (error) {
      return fail(`cannot read --fintoc-jws-key-file: ${(error as Error).message}`, 2);
    }
  }
  const settings = {
    secretKey,
    webhookSecret,
    jwsPrivateKey,
    sourceAccount: stringOption(args, 'fintoc-account') ?? null,
    environment: stringOption(args, 'environment') ?? 'production',
  };
  const checked = checkFintocSettings(settings);
  if (!checked.ok) return fail(checked.error, 2);
  if ((await findAccountRowById(c.db, id)) === undefined) return fail(`no account with id ${id}`);
  await saveFintocSettings(c, id, settings, c.clock.now());
  const payouts = jwsPrivateKey !== null && settings.sourceAccount !== null;
  if (args.values.json === true)
    return ok(
      JSON.stringify({
        account_id: id,
        processor: 'fintoc',
        environment: settings.environment,
        payouts,
      }),
    );
  const note =
    c.config.mode === 'production'
      ? ''
      : ' (used in production mode only; this deployment is in sandbox mode)';
  return ok(
    `bank transfers of ${id} go through Fintoc, environment ${settings.environment}; payouts ${payouts ? `as Fintoc transfers from ${settings.sourceAccount}` : 'stay on bank files (no --fintoc-jws-key-file and --fintoc-account)'}; webhook URL: ${c.config.publicBaseUrl}/webhooks/fintoc/${id}${note}`,
  );
}

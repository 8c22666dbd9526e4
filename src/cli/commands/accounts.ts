import type { AccountView, RotateTarget } from '../../modules/accounts/service.ts';
import { fail, ok, requireCtx, stringOption, type Command, type CommandArgs } from '../command.ts';
import { graceHoursOption } from './keys.ts';
import { keyLimits } from '../../limits/index.ts';
import type { TransbankKeysSummary } from '../../platform/processors/transbank-environments.ts';

/** `--webhook-grace-hours N`: whole hours, undefined when absent (the service's default); the service checks the bound. */
function webhookGraceHoursOption(args: CommandArgs): number | string | undefined {
  const text = stringOption(args, 'webhook-grace-hours');
  if (text === undefined) return undefined;
  return /^\d{1,6}$/.test(text) && Number(text) <= keyLimits.webhookSecretGraceHoursMax
    ? Number(text)
    : `--webhook-grace-hours must be a whole number from 0 to ${keyLimits.webhookSecretGraceHoursMax}`;
}

const transbankNames = {
  webpay_plus: 'webpay plus:   ',
  oneclick_mall: 'oneclick mall: ',
} as const;

/** `accounts show`'s lines of the account's Transbank keys; on the integration host, what that means (decision 984). */
function transbankLines(keys: readonly TransbankKeysSummary[]): string[] {
  return keys.map(
    (k) =>
      `${transbankNames[k.product]} commerce code ${k.commerceCode}, environment ${k.environment}${k.integration ? ": Transbank's TEST environment, its public test cards pay and no money moves" : ''}`,
  );
}

function describe(a: AccountView): string {
  return [
    `id:             ${a.id}`,
    `name:           ${a.name}`,
    `status:         ${a.status}`,
    `created_at:     ${a.createdAt}`,
    `public token:   ${a.publicToken}`,
    `private token:  ${a.privateToken}`,
    `webhook secret: ${a.webhookSecret}`,
    ...(a.webhookSecretPreviousUntil === null
      ? []
      : [
          `                (the previous one also signs callbacks until ${a.webhookSecretPreviousUntil})`,
        ]),
  ].join('\n');
}

function json(a: AccountView): object {
  return {
    id: a.id,
    name: a.name,
    status: a.status,
    created_at: a.createdAt,
    public_token: a.publicToken,
    private_token: a.privateToken,
    webhook_secret: a.webhookSecret,
    webhook_secret_previous_until: a.webhookSecretPreviousUntil,
  };
}

export const accountsCreate: Command = {
  name: 'accounts create',
  summary: 'Create a merchant account and print its credentials',
  usage: 'cobro accounts create --name NAME [--json]',
  options: {
    name: {
      type: 'string',
      description: "the merchant's name, as its customers see it (required)",
    },
    json: { type: 'boolean', description: 'print the account as one JSON object' },
  },
  examples: [
    'cobro accounts create --name "Tienda Uno"',
    'cobro accounts create --name "Tienda Uno" --json | jq -r .private_token',
  ],
  needsDb: true,
  async run(ctx, args) {
    const name = stringOption(args, 'name');
    if (name === undefined) return fail('--name is required', 2);
    const { createAccount } = await import('../../modules/accounts/service.ts');
    const created = await createAccount(requireCtx(ctx), name);
    if (!created.ok) return fail(created.error, 2);
    // The row names the account made, first in its own chain (decision 1120): with no `--account` among its
    // arguments it fell to `service` naming nothing, and the trail could not say which account got credentials.
    return ok(
      args.values.json === true ? JSON.stringify(json(created.value)) : describe(created.value),
      { account: created.value.id, target: created.value.id },
    );
  },
};

export const accountsList: Command = {
  name: 'accounts list',
  summary: 'List merchant accounts',
  usage: 'cobro accounts list [--json]',
  options: {
    json: { type: 'boolean', description: 'print a JSON array of {id, name, status, created_at}' },
  },
  examples: ['cobro accounts list', 'cobro accounts list --json | jq -r ".[].id"'],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const { listAccounts } = await import('../../modules/accounts/service.ts');
    const accounts = await listAccounts(requireCtx(ctx));
    if (args.values.json === true)
      return ok(
        JSON.stringify(
          accounts.map((a) => ({
            id: a.id,
            name: a.name,
            status: a.status,
            created_at: a.createdAt,
          })),
        ),
      );
    if (accounts.length === 0) return ok('no accounts');
    return ok(
      accounts.map((a) => `${a.id}  ${a.status.padEnd(8)}  ${a.createdAt}  ${a.name}`).join('\n'),
    );
  },
};

export const accountsShow: Command = {
  name: 'accounts show',
  summary:
    "Show an account, its credentials, its chargeback debt and its Transbank keys' environment (never their API keys)",
  usage: 'cobro accounts show ID [--json]',
  options: {
    json: {
      type: 'boolean',
      description:
        'print the account, its credentials, its chargeback debt ({CURRENCY: minor units owed}, {} when none) and its Transbank keys ({product, commerce_code, environment, integration}) as one JSON object',
    },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: [
    'cobro accounts show acc4f6c0e3d2b1a09876',
    'cobro accounts show acc4f6c0e3d2b1a09876 --json',
  ],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail('usage: cobro accounts show ID', 2);
    const [{ showAccount }, { transbankKeysOf }, { owedDebt }, { bankCodesByCurrency }] =
      await Promise.all([
        import('../../modules/accounts/service.ts'),
        import('../../platform/processors/transbank-environments.ts'),
        import('../../modules/wallet/debt-collection.ts'),
        import('../../modules/reference/repository.ts'),
      ]);
    const c = requireCtx(ctx);
    const found = await showAccount(c, id);
    if (!found.ok) return fail(found.error);
    const keys = await transbankKeysOf(c.db, id);
    // What the account owes after lost disputes, per wallet currency, as the debt's collection reads it (decision 997).
    const currencies = [...(await bankCodesByCurrency(c)).keys()].sort();
    // Only the currencies it owes in: none owed prints `none` and `{}`.
    const debt = (
      await Promise.all(
        currencies.map(async (currency) => ({
          currency,
          owedMinor: await owedDebt(c, c.db, id, currency),
        })),
      )
    ).filter((d) => d.owedMinor > 0n);
    if (args.values.json === true)
      return ok(
        JSON.stringify({
          ...json(found.value),
          chargeback_debt: Object.fromEntries(
            debt.map((d) => [d.currency, d.owedMinor.toString()]),
          ),
          transbank: keys.map((k) => ({
            product: k.product,
            commerce_code: k.commerceCode,
            environment: k.environment,
            integration: k.integration,
          })),
        }),
      );
    const debtLine = `chargeback debt: ${debt.map((d) => `${d.owedMinor} ${d.currency}`).join(', ') || 'none'}`;
    return ok([describe(found.value), debtLine, ...transbankLines(keys)].join('\n'));
  },
};

export const accountsRotate: Command = {
  name: 'accounts rotate',
  summary:
    'Issue new credentials; the old tokens stop working at once or after --grace-hours, the old webhook secret signs beside the new one for --webhook-grace-hours',
  usage:
    'cobro accounts rotate ID [--only tokens|webhook-secret] [--grace-hours N] [--webhook-grace-hours N] [--json]',
  options: {
    'grace-hours': {
      type: 'string',
      valueName: 'N',
      description:
        'hours the old token pair keeps working (default 0, at most 720); see cobro keys list',
    },
    'webhook-grace-hours': {
      type: 'string',
      valueName: 'N',
      description: `hours callbacks carry a signature with the old webhook secret after the new one's (default ${keyLimits.webhookSecretGraceHoursDefault}, 0 for none, at most ${keyLimits.webhookSecretGraceHoursMax}; refused with --only tokens, and while an earlier grace runs, which 0 ends)`,
    },
    only: {
      type: 'string',
      valueName: 'tokens|webhook-secret',
      description: 'rotate only the API tokens or only the webhook secret (default: all)',
    },
    json: { type: 'boolean', description: 'print the new credentials as one JSON object' },
  },
  operands: [{ name: 'ID', description: 'the account id (acc...)' }],
  examples: [
    'cobro accounts rotate acc4f6c0e3d2b1a09876',
    'cobro accounts rotate acc4f6c0e3d2b1a09876 --only webhook-secret',
    'cobro accounts rotate acc4f6c0e3d2b1a09876 --grace-hours 24',
    'cobro accounts rotate acc4f6c0e3d2b1a09876 --only webhook-secret --webhook-grace-hours 0',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined)
      return fail('usage: cobro accounts rotate ID [--only tokens|webhook-secret]', 2);
    const only = stringOption(args, 'only') ?? 'all';
    const { rotateAccount, rotateTargets } = await import('../../modules/accounts/service.ts');
    if (!(rotateTargets as readonly string[]).includes(only))
      return fail(`--only must be one of ${rotateTargets.join(', ')}`, 2);
    const grace = graceHoursOption(args);
    if (typeof grace === 'string') return fail(grace, 2);
    const webhookGrace = webhookGraceHoursOption(args);
    if (typeof webhookGrace === 'string') return fail(webhookGrace, 2);
    // A tokens-only rotation keeps the webhook secret: a grace given with it would be dropped unsaid (decision 1045).
    if (only === 'tokens' && webhookGrace !== undefined)
      return fail(
        '--webhook-grace-hours applies to a rotation of the webhook secret, not to --only tokens',
        2,
      );
    const webhookGraceHours = webhookGrace ?? keyLimits.webhookSecretGraceHoursDefault;
    const rotated = await rotateAccount(requireCtx(ctx), id, only as RotateTarget, {
      graceHours: grace,
      webhookGraceHours,
    });
    if (!rotated.ok) return fail(rotated.error);
    // The audit row names the webhook secret's grace, given or not, when the secret was rotated (decision 1000).
    return ok(
      args.values.json === true ? JSON.stringify(json(rotated.value)) : describe(rotated.value),
      {
        account: id,
        target: id,
        ...(only === 'tokens' ? {} : { detail: `--webhook-grace-hours ${webhookGraceHours}` }),
      },
    );
  },
};

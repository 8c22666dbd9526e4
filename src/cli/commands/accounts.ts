import { createAccount, listAccounts, rotateAccount, rotateTargets, showAccount, type AccountView, type RotateTarget } from '../../modules/accounts/service.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

function describe(a: AccountView): string {
  return [
    `id:             ${a.id}`,
    `name:           ${a.name}`,
    `status:         ${a.status}`,
    `created_at:     ${a.createdAt}`,
    `public token:   ${a.publicToken}`,
    `private token:  ${a.privateToken}`,
    `webhook secret: ${a.webhookSecret}`,
  ].join('\n');
}

function json(a: AccountView): object {
  return { id: a.id, name: a.name, status: a.status, created_at: a.createdAt, public_token: a.publicToken, private_token: a.privateToken, webhook_secret: a.webhookSecret };
}

export const accountsCreate: Command = {
  name: 'accounts create',
  summary: 'Create a merchant account and print its credentials',
  usage: 'cobro accounts create --name NAME [--json]',
  options: { name: { type: 'string' }, json: { type: 'boolean' } },
  needsDb: true,
  async run(ctx, args) {
    const name = stringOption(args, 'name');
    if (name === undefined) return fail('--name is required', 2);
    const created = await createAccount(requireCtx(ctx), name);
    if (!created.ok) return fail(created.error, 2);
    return ok(args.values.json === true ? JSON.stringify(json(created.value)) : describe(created.value));
  },
};

export const accountsList: Command = {
  name: 'accounts list',
  summary: 'List merchant accounts',
  usage: 'cobro accounts list [--json]',
  options: { json: { type: 'boolean' } },
  needsDb: true,
  async run(ctx, args) {
    const accounts = await listAccounts(requireCtx(ctx));
    if (args.values.json === true) return ok(JSON.stringify(accounts.map((a) => ({ id: a.id, name: a.name, status: a.status, created_at: a.createdAt }))));
    if (accounts.length === 0) return ok('no accounts');
    return ok(accounts.map((a) => `${a.id}  ${a.status.padEnd(8)}  ${a.createdAt}  ${a.name}`).join('\n'));
  },
};

export const accountsShow: Command = {
  name: 'accounts show',
  summary: 'Show an account and its credentials',
  usage: 'cobro accounts show ID [--json]',
  options: { json: { type: 'boolean' } },
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail('usage: cobro accounts show ID', 2);
    const found = await showAccount(requireCtx(ctx), id);
    if (!found.ok) return fail(found.error);
    return ok(args.values.json === true ? JSON.stringify(json(found.value)) : describe(found.value));
  },
};

export const accountsRotate: Command = {
  name: 'accounts rotate',
  summary: 'Issue new credentials; the old ones stop working at once',
  usage: 'cobro accounts rotate ID [--only tokens|webhook-secret] [--json]',
  options: { only: { type: 'string' }, json: { type: 'boolean' } },
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail('usage: cobro accounts rotate ID [--only tokens|webhook-secret]', 2);
    const only = stringOption(args, 'only') ?? 'all';
    if (!(rotateTargets as readonly string[]).includes(only)) return fail(`--only must be one of ${rotateTargets.join(', ')}`, 2);
    const rotated = await rotateAccount(requireCtx(ctx), id, only as RotateTarget);
    if (!rotated.ok) return fail(rotated.error);
    return ok(args.values.json === true ? JSON.stringify(json(rotated.value)) : describe(rotated.value));
  },
};

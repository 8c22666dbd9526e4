// API keys of narrower scope than an account's primary pair (decision 540): create, list, revoke, rotate.
import type { KeyView, NewKey } from '../../modules/accounts/keys.ts';
import { fail, ok, requireCtx, stringOption, type CommandArgs, type Command } from '../command.ts';
import { keyLimits } from '../../limits/index.ts';
import { unknownAccount } from '../account-option.ts';

function keyJson(k: KeyView | NewKey): object {
  return {
    id: k.id,
    account_id: k.accountId,
    name: k.name,
    scope: k.scope,
    state: k.state,
    public_token: k.publicToken,
    ...('privateToken' in k ? { private_token: k.privateToken } : {}),
    created_at: k.createdAt,
    expires_at: k.expiresAt,
    revoked_at: k.revokedAt,
  };
}

function describeNew(k: NewKey): string {
  return [
    `id:             ${k.id}`,
    `account:        ${k.accountId}`,
    `name:           ${k.name}`,
    `scope:          ${k.scope}`,
    `public token:   ${k.publicToken}`,
    `private token:  ${k.privateToken}`,
    '(the private token is not shown again: keep it now)',
  ].join('\n');
}

function keyLine(k: KeyView): string {
  const until =
    k.revokedAt !== null
      ? `revoked ${k.revokedAt}`
      : k.expiresAt !== null
        ? `${k.state === 'expired' ? 'expired' : 'expires'} ${k.expiresAt}`
        : 'no expiry';
  return `${k.id.padEnd(20)}  ${k.scope.padEnd(8)}  ${k.state.padEnd(8)}  ${until.padEnd(28)}  ${k.publicToken}  ${k.name}`;
}

/** `--grace-hours N`: whole hours, 0 when absent; the service checks the bound. */
export function graceHoursOption(args: CommandArgs): number | string {
  const text = stringOption(args, 'grace-hours');
  if (text === undefined) return 0;
  // Past its bound as much as not a number: a usage error (exit 2), where the service's refusal exited 1 (decision 1145).
  return /^\d{1,6}$/.test(text) && Number(text) <= keyLimits.rotationGraceHoursMax
    ? Number(text)
    : `--grace-hours must be a whole number from 0 to ${keyLimits.rotationGraceHoursMax}`;
}

export const keysCreate: Command = {
  name: 'keys create',
  summary: 'Make an API key of a scope (full, payments or read) and print its token pair',
  usage: 'cobro keys create --account ID --scope full|payments|read [--name NAME] [--json]',
  options: {
    account: { type: 'string', valueName: 'ID', description: 'the account id (required)' },
    scope: {
      type: 'string',
      valueName: 'full|payments|read',
      description: 'read: every GET; payments: also takes payments and refunds; full: everything',
    },
    name: { type: 'string', description: 'what the key is for (default: its scope)' },
    json: { type: 'boolean', description: 'print the key and its tokens as one JSON object' },
  },
  examples: [
    'cobro keys create --account acc4f6c0e3d2b1a09876 --scope read --name reporting',
    'cobro keys create --account acc4f6c0e3d2b1a09876 --scope payments --json | jq -r .private_token',
  ],
  needsDb: true,
  async run(ctx, args) {
    const accountId = stringOption(args, 'account');
    const scope = stringOption(args, 'scope');
    if (accountId === undefined || scope === undefined)
      return fail('--account and --scope are required', 2);
    const missing = await unknownAccount(requireCtx(ctx), accountId);
    if (missing !== null) return missing;
    const { createKey } = await import('../../modules/accounts/keys.ts');
    const made = await createKey(requireCtx(ctx), {
      accountId,
      scope,
      name: stringOption(args, 'name'),
    });
    // A suspended account or a full key set is a refused action (1); a bad scope or name is usage (2).
    if (!made.ok) return fail(made.error, made.refused ? 1 : 2);
    return ok(
      args.values.json === true ? JSON.stringify(keyJson(made.value)) : describeNew(made.value),
      { account: accountId, target: made.value.id },
    );
  },
};

export const keysList: Command = {
  name: 'keys list',
  summary: "List an account's keys: the primary pair, then the others with their expiry",
  usage: 'cobro keys list --account ID [--json]',
  options: {
    account: { type: 'string', valueName: 'ID', description: 'the account id (required)' },
    json: { type: 'boolean', description: 'print a JSON array of keys (no private tokens)' },
  },
  examples: ['cobro keys list --account acc4f6c0e3d2b1a09876'],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const accountId = stringOption(args, 'account');
    if (accountId === undefined) return fail('--account is required', 2);
    const { listKeys } = await import('../../modules/accounts/keys.ts');
    const listed = await listKeys(requireCtx(ctx), accountId);
    if (!listed.ok) return fail(listed.error);
    if (args.values.json === true) return ok(JSON.stringify(listed.value.map(keyJson)));
    return ok(listed.value.map(keyLine).join('\n'));
  },
};

export const keysRevoke: Command = {
  name: 'keys revoke',
  summary: 'Refuse a key from now on',
  usage: 'cobro keys revoke KEY_ID [--json]',
  options: { json: { type: 'boolean', description: 'print the revoked key as one JSON object' } },
  operands: [{ name: 'KEY_ID', description: 'the key id (key...)' }],
  examples: ['cobro keys revoke key1a2b3c4d5e6f7a8b9'],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail('usage: cobro keys revoke KEY_ID', 2);
    const { revokeKey } = await import('../../modules/accounts/keys.ts');
    const revoked = await revokeKey(requireCtx(ctx), id);
    if (!revoked.ok) return fail(revoked.error);
    return ok(
      args.values.json === true
        ? JSON.stringify(keyJson(revoked.value))
        : `revoked ${revoked.value.id} (${revoked.value.scope}, ${revoked.value.name})`,
      { account: revoked.value.accountId, target: id },
    );
  },
};

export const keysRotate: Command = {
  name: 'keys rotate',
  summary: 'Issue a new pair for a key; the old one works --grace-hours more (0: stops at once)',
  usage: 'cobro keys rotate KEY_ID [--grace-hours N] [--json]',
  options: {
    'grace-hours': {
      type: 'string',
      valueName: 'N',
      description: 'hours the old pair keeps working (default 0, at most 720)',
    },
    json: { type: 'boolean', description: 'print the new key and its tokens as one JSON object' },
  },
  operands: [{ name: 'KEY_ID', description: 'the key id (key...)' }],
  examples: ['cobro keys rotate key1a2b3c4d5e6f7a8b9 --grace-hours 24'],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail('usage: cobro keys rotate KEY_ID [--grace-hours N]', 2);
    const grace = graceHoursOption(args);
    if (typeof grace === 'string') return fail(grace, 2);
    const { rotateKey } = await import('../../modules/accounts/keys.ts');
    const rotated = await rotateKey(requireCtx(ctx), id, grace);
    if (!rotated.ok) return fail(rotated.error);
    return ok(
      args.values.json === true
        ? JSON.stringify(keyJson(rotated.value))
        : describeNew(rotated.value),
      { account: rotated.value.accountId, target: id },
    );
  },
};

// Dashboard users (decision 541): invite one with a role (a one-time sign-in link, 24 h), reset one who lost a
// password or second factor (decision 580), remove one (decision 740), list them, and turn signing in with the
// account's tokens off once an owner has a password.
import type { Invitation } from '../../dashboard/users.ts';
import {
  fail,
  ok,
  requireCtx,
  stringOption,
  type Command,
  type CommandArgs,
  type CommandOutput,
} from '../command.ts';

/** Every users command names its account; the ones about one user also name them by e-mail. */
const accountOption = {
  account: { type: 'string', valueName: 'ID', description: 'the account id (required)' },
} as const;
const userOptions = {
  ...accountOption,
  email: { type: 'string', description: "the user's e-mail address (required)" },
} as const;

/** The account and e-mail of `users reset` and `users remove`, or the usage error both answer. */
function accountAndEmail(args: CommandArgs): { accountId: string; email: string } | CommandOutput {
  const accountId = stringOption(args, 'account');
  const email = stringOption(args, 'email');
  if (accountId === undefined || email === undefined)
    return fail('--account and --email are required', 2);
  return { accountId, email };
}

export const usersInvite: Command = {
  name: 'users invite',
  summary: 'Invite a dashboard user with a role; prints a one-time sign-in link valid 24 hours',
  usage:
    'cobro users invite --account ID --email EMAIL --role owner|admin|developer|viewer [--json]',
  options: {
    ...accountOption,
    email: {
      type: 'string',
      description: "the user's e-mail address, their sign-in name (required)",
    },
    role: {
      type: 'string',
      valueName: 'owner|admin|developer|viewer',
      description:
        'viewer reads; developer also manages keys and resends callbacks; admin also moves money and changes settings; owner also manages users',
    },
    json: { type: 'boolean', description: 'print the invitation as one JSON object' },
  },
  examples: [
    'cobro users invite --account acc4f6c0e3d2b1a09876 --email ana@example.com --role viewer',
  ],
  needsDb: true,
  async run(ctx, args) {
    const accountId = stringOption(args, 'account');
    const email = stringOption(args, 'email');
    const role = stringOption(args, 'role');
    if (accountId === undefined || email === undefined || role === undefined)
      return fail('--account, --email and --role are required', 2);
    const { inviteUser } = await import('../../dashboard/users.ts');
    const invited = await inviteUser(requireCtx(ctx), { accountId, email, role });
    if (!invited.ok) return fail(invited.error, 2);
    return printInvitation(accountId, invited.value, args.values.json === true);
  },
};

/** The invitation, its audit row naming the user invited or reset (decision 675). */
function printInvitation(accountId: string, i: Invitation, json: boolean): CommandOutput {
  const user = { account: accountId, target: i.userId };
  if (json)
    return ok(
      JSON.stringify({
        user_id: i.userId,
        email: i.email,
        role: i.role,
        link: i.link,
        expires_at: i.expiresAt,
      }),
      user,
    );
  return ok(
    [
      `user:     ${i.userId} (${i.email}, ${i.role})`,
      `link:     ${i.link}`,
      `expires:  ${i.expiresAt}`,
      '(the link works once: the user sets a password there)',
    ].join('\n'),
    user,
  );
}

export const usersReset: Command = {
  name: 'users reset',
  summary:
    'Reset a dashboard user who lost their password or second factor; prints a new one-time link valid 24 hours',
  usage: 'cobro users reset --account ID --email EMAIL [--json]',
  options: {
    ...userOptions,
    json: { type: 'boolean', description: 'print the new invitation as one JSON object' },
  },
  examples: ['cobro users reset --account acc4f6c0e3d2b1a09876 --email ana@example.com'],
  needsDb: true,
  async run(ctx, args) {
    const named = accountAndEmail(args);
    if (!('accountId' in named)) return named;
    const { accountId, email } = named;
    const { resetUser } = await import('../../dashboard/user-reset.ts');
    const reset = await resetUser(requireCtx(ctx), accountId, email);
    if (!reset.ok) return fail(reset.error, 1);
    return printInvitation(accountId, reset.value, args.values.json === true);
  },
};

export const usersRemove: Command = {
  name: 'users remove',
  summary: 'Remove a dashboard user; their sessions end with them',
  usage: 'cobro users remove --account ID --email EMAIL',
  options: userOptions,
  examples: ['cobro users remove --account acc4f6c0e3d2b1a09876 --email ana@example.com'],
  needsDb: true,
  async run(ctx, args) {
    const named = accountAndEmail(args);
    if (!('accountId' in named)) return named;
    const { accountId, email } = named;
    const { removeUser } = await import('../../dashboard/user-remove.ts');
    const removed = await removeUser(requireCtx(ctx), accountId, email);
    if (!removed.ok) return fail(removed.error, 1);
    return ok(`removed ${removed.value.userId} (${removed.value.email})`, {
      account: accountId,
      target: removed.value.userId,
    });
  },
};

export const usersList: Command = {
  name: 'users list',
  summary: "List an account's dashboard users",
  usage: 'cobro users list --account ID [--json]',
  options: {
    ...accountOption,
    json: { type: 'boolean', description: 'print a JSON array of users' },
  },
  examples: ['cobro users list --account acc4f6c0e3d2b1a09876'],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const accountId = stringOption(args, 'account');
    if (accountId === undefined) return fail('--account is required', 2);
    const [{ listUsers }, { findAccountRowById }] = await Promise.all([
      import('../../dashboard/users.ts'),
      import('../../modules/accounts/repository.ts'),
    ]);
    // An account that does not exist is an error, as for `keys list`, not an account with no users (decision 810).
    if ((await findAccountRowById(requireCtx(ctx).db, accountId)) === undefined)
      return fail(`no account with id ${accountId}`);
    const users = await listUsers(requireCtx(ctx), accountId);
    if (args.values.json === true) return ok(JSON.stringify(users));
    if (users.length === 0) return ok('no users');
    return ok(
      users.map((u) => `${u.id}  ${u.role.padEnd(9)}  ${u.state.padEnd(7)}  ${u.email}`).join('\n'),
    );
  },
};

export const usersTokenSignIn: Command = {
  name: 'users token-sign-in',
  summary: "Allow or refuse signing in to the dashboard with the account's tokens",
  usage: 'cobro users token-sign-in --account ID on|off',
  options: accountOption,
  operands: [{ name: 'on|off', description: 'off once an owner has set a password' }],
  examples: ['cobro users token-sign-in --account acc4f6c0e3d2b1a09876 off'],
  needsDb: true,
  async run(ctx, args) {
    const accountId = stringOption(args, 'account');
    const value = args.positionals[0];
    if (accountId === undefined || (value !== 'on' && value !== 'off'))
      return fail('usage: cobro users token-sign-in --account ID on|off', 2);
    const [{ setTokenSignIn }, { findAccountRowById }] = await Promise.all([
      import('../../dashboard/token-sign-in.ts'),
      import('../../modules/accounts/repository.ts'),
    ]);
    // Named before the owner is looked for: an unknown id used to read "no owner with a password yet" (decision 1145).
    if ((await findAccountRowById(requireCtx(ctx).db, accountId)) === undefined)
      return fail(`no account with id ${accountId}`);
    const set = await setTokenSignIn(requireCtx(ctx), accountId, value === 'on');
    if (!set.ok) return fail(set.error);
    return ok(`token sign-in ${value} for ${accountId}`);
  },
};

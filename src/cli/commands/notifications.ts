// `cobro notifications list|show|retry`: the operator's view of callback deliveries across accounts.
import {
  notificationStatuses,
  type NotificationStatus,
} from '../../platform/notifications/types.ts';
import { limits } from '../../limits/index.ts';
import type { NotificationView } from '../../modules/notifications/service.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';
import { unknownAccount } from '../account-option.ts';

function line(n: NotificationView): string {
  const last = n.last_status_code !== null ? `HTTP ${n.last_status_code}` : (n.last_error ?? '-');
  return `${n.id}  ${n.status.padEnd(10)}  ${String(n.attempts).padStart(2)}  ${n.created_at}  ${n.account_id}  ${n.event_type}  ${last}`;
}

export const notificationsList: Command = {
  name: 'notifications list',
  summary: 'List callback deliveries, newest first',
  usage:
    'cobro notifications list [--account ID] [--status pending|delivering|delivered|failed] [--limit N] [--json]',
  options: {
    account: { type: 'string', valueName: 'ID', description: "only this account's callbacks" },
    status: {
      type: 'string',
      valueName: notificationStatuses.join('|'),
      description: 'only callbacks in this state',
    },
    limit: {
      type: 'string',
      valueName: 'N',
      description: `how many, newest first (default 50, at most ${limits.cliListRowsMax})`,
    },
    json: { type: 'boolean', description: 'print the page as JSON ({notifications, total})' },
  },
  examples: [
    'cobro notifications list --status failed',
    'cobro notifications list --account acc4f6c0e3d2b1a09876 --limit 10 --json',
  ],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const { listNotifications } = await import('../../modules/notifications/service.ts');
    const status = stringOption(args, 'status');
    if (status !== undefined && !(notificationStatuses as readonly string[]).includes(status)) {
      return fail(`--status must be one of ${notificationStatuses.join(', ')}`, 2);
    }
    const limitText = stringOption(args, 'limit') ?? '50';
    if (
      !/^\d{1,6}$/.test(limitText) ||
      Number(limitText) < 1 ||
      Number(limitText) > limits.cliListRowsMax
    ) {
      return fail(`--limit must be an integer from 1 to ${limits.cliListRowsMax}`, 2);
    }
    const missing = await unknownAccount(requireCtx(ctx), stringOption(args, 'account'));
    if (missing !== null) return missing;
    const page = await listNotifications(requireCtx(ctx), {
      accountId: stringOption(args, 'account') ?? null,
      ...(status !== undefined ? { status: status as NotificationStatus } : {}),
      offset: 0,
      limit: Number(limitText),
    });
    if (args.values.json === true) return ok(JSON.stringify(page));
    if (page.notifications.length === 0) return ok('no notifications');
    return ok(
      [...page.notifications.map(line), `(${page.notifications.length} of ${page.total})`].join(
        '\n',
      ),
    );
  },
};

export const notificationsShow: Command = {
  name: 'notifications show',
  summary: 'Show one callback delivery with every attempt',
  usage: 'cobro notifications show ID [--json]',
  options: {
    json: {
      type: 'boolean',
      description: 'print the delivery and its attempts as one JSON object',
    },
  },
  operands: [{ name: 'ID', description: 'the notification id, as `notifications list` prints it' }],
  examples: ['cobro notifications show msg_3f1c0e9a7b2d4c6e8f0a1b2c'],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const { showNotification } = await import('../../modules/notifications/service.ts');
    const id = args.positionals[0];
    if (id === undefined) return fail('usage: cobro notifications show ID', 2);
    const found = await showNotification(requireCtx(ctx), id, null);
    if (found === null) return fail(`no notification with id ${id}`);
    if (args.values.json === true) return ok(JSON.stringify(found));
    const attempts = found.attempts_log.map(
      (a) =>
        `  #${a.attempt}  ${a.started_at}  ${(a.outcome ?? 'sending').padEnd(9)}  ${a.status_code ?? '-'}  ${a.latency_ms ?? '-'} ms  ${a.error ?? ''}`,
    );
    return ok(
      [
        line(found),
        `url: ${found.url}`,
        `payload: ${JSON.stringify(found.payload)}`,
        'attempts:',
        ...attempts,
      ].join('\n'),
    );
  },
};

export const notificationsRetry: Command = {
  name: 'notifications retry',
  summary: 'Send a callback again now (same webhook-id)',
  usage: 'cobro notifications retry ID',
  options: {},
  operands: [{ name: 'ID', description: 'the notification id, as `notifications list` prints it' }],
  examples: ['cobro notifications retry msg_3f1c0e9a7b2d4c6e8f0a1b2c'],
  needsDb: true,
  async run(ctx, args) {
    const { retryNotification } = await import('../../modules/notifications/service.ts');
    const id = args.positionals[0];
    if (id === undefined) return fail('usage: cobro notifications retry ID', 2);
    const retried = await retryNotification(requireCtx(ctx), id, null);
    if (retried === null) return fail(`no notification with id ${id}`);
    if ('message_error' in retried) return fail(retried.message_error);
    return ok(`queued: ${line(retried)}`, { account: retried.account_id, target: id });
  },
};

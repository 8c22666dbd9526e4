// `cobro notifications prune`: deletes delivered and failed callbacks (with their attempts) whose last attempt is
// older than N days, as the retention worker does with CALLBACK_RETENTION_DAYS (decision 994).
import { configLimits } from '../../limits/index.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

export const notificationsPrune: Command = {
  name: 'notifications prune',
  summary: 'Delete delivered and failed callbacks older than N days, with their attempts',
  usage: 'cobro notifications prune [--older-than-days N]',
  options: {
    'older-than-days': {
      type: 'string',
      valueName: 'N',
      description: `days since a callback's last attempt (${configLimits.callbackPruneDaysMin} to ${configLimits.callbackRetentionDaysMax}; default CALLBACK_RETENTION_DAYS)`,
    },
  },
  examples: ['cobro notifications prune', 'cobro notifications prune --older-than-days 90'],
  needsDb: true,
  // Each batch commits with its own transaction; the first that deletes anything records the audit row.
  audit: 'own',
  async run(ctx, args) {
    const { pruneNotificationsRun } = await import('../../modules/notifications/prune-run.ts');
    const c = requireCtx(ctx);
    const { callbackPruneDaysMin: min, callbackRetentionDaysMax: max } = configLimits;
    const given = stringOption(args, 'older-than-days');
    if (given !== undefined && (!/^\d{1,4}$/.test(given) || +given < min || +given > max))
      return fail(`--older-than-days must be an integer from ${min} to ${max}`, 2);
    const days = given !== undefined ? Number(given) : c.config.callbackRetentionDays;
    if (days === null)
      return fail(
        'CALLBACK_RETENTION_DAYS is 0 (keep every callback): name a bound with --older-than-days N',
        2,
      );
    const run = await pruneNotificationsRun(c, days);
    const { formatTimestamp } = await import('../../platform/time/time-format.ts');
    const text = `deleted ${run.notifications} callbacks and ${run.attempts} attempts: delivered or failed, last attempt before ${formatTimestamp(run.before, c.config.timeZone)}`;
    return ok(run.more ? `${text}\nmore may be left: run it again` : text);
  },
};

// The su* lists' date filter: `date_init` and `date_end` (YYYY-MM-DD, both included), each defaulting to today on
// the account's clock (reference §7.5, §7.7, §7.8).
import type { AppContext } from '../../platform/context.ts';
import { validationError } from '../../platform/errors/errors.ts';
import { formatDate, parseLocal } from '../../platform/time/time-format.ts';
import { subscriptionLimits } from '../../limits/index.ts';

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

export async function dayRange(
  ctx: AppContext,
  accountId: string,
  dateInit: string | undefined,
  dateEnd: string | undefined,
): Promise<{ from: Date; before: Date }> {
  const tz = ctx.config.timeZone;
  const today = formatDate(await ctx.accountClock.now(accountId, ctx.db), tz);
  const from =
    dateInit === undefined || dayPattern.test(dateInit) ? parseLocal(dateInit ?? today, tz) : null;
  const endDay =
    dateEnd === undefined || dayPattern.test(dateEnd) ? parseLocal(dateEnd ?? today, tz) : null;
  const problems: Record<string, string> = {};
  if (from === null) problems.date_init = 'invalid';
  if (endDay === null) problems.date_end = 'invalid';
  if (from === null || endDay === null) throw validationError(problems);
  // Up to the next local midnight: a day later plus a margin for a DST change, read back as a date.
  const before = parseLocal(
    formatDate(
      new Date(endDay.getTime() + subscriptionLimits.dayMs + subscriptionLimits.dstMarginMs),
      tz,
    ),
    tz,
  );
  if (before === null || before <= from) throw validationError({ date_end: 'invalid' });
  return { from, before };
}

// When a plan's cycles fall due (decision 100): the first one `interval_count` intervals after the trial ends
// (reference §7.0: a fixed plan is charged from the period after subscribing), and each next one an interval later,
// counted on the calendar of the service time zone from the instant the trial ends (activation plus the trial's
// days, at the same local time), so a monthly cycle keeps its day of the month (the 31st becomes the month's last
// day). The trial's days are counted before the months, never after each one (decision 988): March 1, April 1,
// May 1 for a week of trial from January 25, not March 4, April 1, May 2.
import { formatTimestamp, parseLocal } from '../../platform/time/time-format.ts';
import type { PlanRow } from './repository.ts';

function daysInMonth(year: number, month1: number): number {
  return new Date(Date.UTC(year, month1, 0)).getUTCDate();
}

/** `anchor` plus `n` of the plan's intervals, on the local calendar. */
export function cycleDueAt(
  plan: Pick<PlanRow, 'interval_unit' | 'interval_count' | 'trial_days'>,
  anchor: Date,
  n: number,
  timeZone: string,
): Date {
  const [date, time] = formatTimestamp(anchor, timeZone).split(' ') as [string, string];
  const [y0, m0, d0] = date.split('-').map(Number) as [number, number, number];
  // The local day the trial ends on: the calendar the months are counted on.
  const trialEnd = new Date(Date.UTC(y0, m0 - 1, d0 + plan.trial_days));
  let [y, m, d] = [trialEnd.getUTCFullYear(), trialEnd.getUTCMonth() + 1, trialEnd.getUTCDate()];
  const steps = plan.interval_count * n;
  let days = 0;
  switch (plan.interval_unit) {
    case 'day':
      days += steps;
      break;
    case 'week':
      days += 7 * steps;
      break;
    case 'month':
    case 'year': {
      const months = plan.interval_unit === 'year' ? 12 * steps : steps;
      const total = y * 12 + (m - 1) + months;
      y = Math.floor(total / 12);
      m = (total % 12) + 1;
      d = Math.min(d, daysInMonth(y, m));
      break;
    }
    default: {
      const never: never = plan.interval_unit;
      return never;
    }
  }
  const shifted = new Date(Date.UTC(y, m - 1, d + days));
  const local = `${shifted.toISOString().slice(0, 10)} ${time}`;
  const at = parseLocal(local, timeZone);
  if (at === null) throw new Error(`cycle date ${local} does not parse`);
  return at;
}

/** When an activated subscription's first cycle falls due; null for consumption plans (charged on demand only). */
export function firstCycleAt(
  plan: Pick<PlanRow, 'type' | 'interval_unit' | 'interval_count' | 'trial_days'>,
  activatedAt: Date,
  timeZone: string,
): Date | null {
  return plan.type === 'consumption' ? null : cycleDueAt(plan, activatedAt, 1, timeZone);
}

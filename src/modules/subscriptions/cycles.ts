// When a plan's cycles fall due (decision 100): the first one `interval_count` intervals (plus the trial days)
// after activation (reference §7.0: a fixed plan is charged from the period after subscribing), and each next one
// an interval later, counted on the calendar of the service time zone from the activation instant, so a monthly
// cycle keeps its day of the month (the 31st becomes the month's last day).
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
  let [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const steps = plan.interval_count * n;
  let days = plan.trial_days;
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

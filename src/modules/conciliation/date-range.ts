// The rules of POST /api/conciliation's dates (seed "Conciliation", Limits): both required, `YYYY-MM-DD`, neither
// after today on the account's clock, date_init not after date_end, at most 30 days apart. Each breach names its
// field in the seed's 400 envelope; a breach of one field's own rules hides the rules that compare the two.
import { validationError } from '../../platform/errors/errors.ts';
import { parseLocal } from '../../platform/time/time-format.ts';
import { conciliationLimits, limits } from '../../limits/index.ts';

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;
const millisecondsPerDay = 24 * 60 * 60 * 1000;

export interface DayRange {
  readonly dateInit: string;
  readonly dateEnd: string;
  /** The first instant of date_init in the service zone. */
  readonly from: Date;
  /** The first instant of the day after date_end in the service zone. */
  readonly before: Date;
}

/**
 * Days since the epoch of a calendar day, or null when the text is not a real `YYYY-MM-DD` day or its year is outside
 * the service's local years (limits.localYearMin to localYearMax, which parseLocal reads): a day before 1900 is the
 * client's `invalid`, not a day that later fails to parse (decision 890).
 */
function dayNumber(text: string): number | null {
  if (!dayPattern.test(text)) return null;
  const [y, m, d] = text.split('-').map((part) => Number.parseInt(part, 10)) as [
    number,
    number,
    number,
  ];
  const ms = Date.UTC(y, m - 1, d);
  const back = new Date(ms);
  if (
    y < limits.localYearMin ||
    y > limits.localYearMax ||
    back.getUTCFullYear() !== y ||
    back.getUTCMonth() !== m - 1 ||
    back.getUTCDate() !== d
  )
    return null;
  return ms / millisecondsPerDay;
}

function dayText(n: number): string {
  return new Date(n * millisecondsPerDay).toISOString().slice(0, 10);
}

/**
 * Checks the two days against today (`YYYY-MM-DD` on the account's clock, service zone) and each other; throws the
 * seed's 400 naming every field at fault.
 */
export function conciliationRange(
  dateInit: string,
  dateEnd: string,
  today: string,
  timeZone: string,
): DayRange {
  const problems: Record<string, string> = {};
  const todayN = dayNumber(today);
  if (todayN === null) throw new Error(`today is not a day: ${today}`);
  const read = (field: 'date_init' | 'date_end', text: string): number | null => {
    const trimmed = text.trim();
    if (trimmed === '') {
      problems[field] = 'is empty';
      return null;
    }
    const n = dayNumber(trimmed);
    if (n === null) {
      problems[field] = 'invalid';
      return null;
    }
    if (n > todayN) {
      problems[field] = 'after today';
      return null;
    }
    return n;
  };
  const init = read('date_init', dateInit);
  const end = read('date_end', dateEnd);
  if (init !== null && end !== null) {
    if (init > end) problems.date_init = 'after date_end';
    else if (end - init > conciliationLimits.rangeDaysMax)
      problems.date_end = `more than ${conciliationLimits.rangeDaysMax} days after date_init`;
  }
  if (init === null || end === null || Object.keys(problems).length > 0)
    throw validationError(problems);
  const from = parseLocal(dayText(init), timeZone);
  const before = parseLocal(dayText(end + 1), timeZone);
  if (from === null || before === null) throw new Error('a checked day parses');
  return { dateInit: dayText(init), dateEnd: dayText(end), from, before };
}

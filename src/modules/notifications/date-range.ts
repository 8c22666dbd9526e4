// Turns the list's `date_init`/`date_end` days (service time zone) into a created_at range.
import { parseLocal } from '../../platform/time/time-format.ts';

export type RangeResult =
  | { readonly ok: true; readonly value: { createdFrom?: Date; createdBefore?: Date } }
  | { readonly ok: false; readonly errors: Record<string, string> };

function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

export function createdRange(
  dateInit: string | undefined,
  dateEnd: string | undefined,
  timeZone: string,
): RangeResult {
  const errors: Record<string, string> = {};
  const from = dateInit === undefined ? undefined : parseLocal(dateInit, timeZone);
  const before =
    dateEnd === undefined
      ? undefined
      : parseLocal(dateEnd, timeZone) === null
        ? null
        : parseLocal(nextDay(dateEnd), timeZone);
  if (from === null) errors.date_init = 'invalid';
  if (before === null) errors.date_end = 'invalid';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  if (from !== undefined && before !== undefined && from! >= before!)
    return { ok: false, errors: { date_end: 'invalid' } };
  return {
    ok: true,
    value: {
      ...(from != null ? { createdFrom: from } : {}),
      ...(before != null ? { createdBefore: before } : {}),
    },
  };
}

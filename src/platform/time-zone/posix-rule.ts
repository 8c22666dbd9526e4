// The POSIX TZ string a TZif file ends with (RFC 8536 §3.3, e.g. `<-04>4<-03>,M9.1.6/24,M4.1.6/24` for
// America/Santiago): the zone's rule for every instant after the file's last transition. Parsed once per zone;
// evaluated for one instant by computing that year's two changes. Decision 380 says why this is ours.
import { limits } from '../../limits.ts';

export interface PosixRule {
  /** Standard time's offset from UTC in seconds, positive east of Greenwich. */
  readonly stdOffsetSec: number;
  /** Daylight time's, or null when the zone keeps standard time all year. */
  readonly dst: {
    readonly offsetSec: number;
    readonly start: ChangeDay;
    /** Seconds after local midnight (standard time) when daylight time starts; RFC 8536 allows -167 to 167 h. */
    readonly startTimeSec: number;
    readonly end: ChangeDay;
    /** Seconds after local midnight (daylight time) when it ends. */
    readonly endTimeSec: number;
  } | null;
}

/** `Jn` (1-365, 29 February never counted), `n` (0-365, counted) or `Mm.w.d` (month, week 1-5 with 5 the last, weekday 0 = Sunday). */
type ChangeDay =
  | { readonly kind: 'julian1'; readonly day: number }
  | { readonly kind: 'julian0'; readonly day: number }
  | { readonly kind: 'month'; readonly month: number; readonly week: number; readonly weekday: number };

const secondsPerHour = 3600;
const secondsPerDay = 86_400;
/** POSIX's default change time, 02:00. */
const defaultChangeTimeSec = 2 * secondsPerHour;

const namePattern = /^(?:<[A-Za-z0-9+-]{1,16}>|[A-Za-z]{3,16})/;
const hmsPattern = /^([+-]?)(\d{1,3})(?::(\d{2}))?(?::(\d{2}))?/;

interface Cursor { text: string }

function takeName(c: Cursor): boolean {
  const m = namePattern.exec(c.text);
  if (m === null) return false;
  c.text = c.text.slice(m[0].length);
  return true;
}

/** `[+-]hh[:mm[:ss]]` in seconds, or null. */
function takeHms(c: Cursor, hoursMax: number): number | null {
  const m = hmsPattern.exec(c.text);
  if (m === null) return null;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? '0');
  const seconds = Number(m[4] ?? '0');
  if (hours > hoursMax || minutes > 59 || seconds > 59) return null;
  c.text = c.text.slice(m[0].length);
  const magnitude = hours * secondsPerHour + minutes * 60 + seconds;
  return m[1] === '-' ? -magnitude : magnitude;
}

function takeChangeDay(c: Cursor): ChangeDay | null {
  const month = /^M(\d{1,2})\.(\d)\.(\d)/.exec(c.text);
  if (month !== null) {
    const [m, w, d] = [Number(month[1]), Number(month[2]), Number(month[3])];
    if (m < 1 || m > 12 || w < 1 || w > 5 || d > 6) return null;
    c.text = c.text.slice(month[0].length);
    return { kind: 'month', month: m, week: w, weekday: d };
  }
  const julian = /^(J?)(\d{1,3})/.exec(c.text);
  if (julian === null) return null;
  const day = Number(julian[2]);
  const oneBased = julian[1] === 'J';
  if (oneBased ? day < 1 || day > 365 : day > 365) return null;
  c.text = c.text.slice(julian[0].length);
  return oneBased ? { kind: 'julian1', day } : { kind: 'julian0', day };
}

function takeChange(c: Cursor): { day: ChangeDay; timeSec: number } | null {
  const day = takeChangeDay(c);
  if (day === null) return null;
  if (!c.text.startsWith('/')) return { day, timeSec: defaultChangeTimeSec };
  c.text = c.text.slice(1);
  const timeSec = takeHms(c, limits.posixChangeHoursMax);
  return timeSec === null ? null : { day, timeSec };
}

/** The rule, or null when the text is not one this parser understands (the caller then asks ICU). */
export function parsePosixRule(text: string): PosixRule | null {
  if (text.length === 0 || text.length > limits.posixRuleLengthMax) return null;
  const c: Cursor = { text };
  if (!takeName(c)) return null;
  // POSIX offsets are west of Greenwich: `<-04>4` is four hours behind UTC.
  const stdWest = takeHms(c, limits.posixOffsetHoursMax);
  if (stdWest === null) return null;
  const stdOffsetSec = 0 - stdWest; // never -0
  if (c.text === '') return { stdOffsetSec, dst: null };
  if (!takeName(c)) return null;
  let offsetSec = stdOffsetSec + secondsPerHour;
  if (!c.text.startsWith(',')) {
    const dstWest = takeHms(c, limits.posixOffsetHoursMax);
    if (dstWest === null) return null;
    offsetSec = 0 - dstWest;
  }
  // A daylight name without its rule would mean the implementation's default: TZif footers always give one.
  if (!c.text.startsWith(',')) return null;
  c.text = c.text.slice(1);
  const start = takeChange(c);
  if (start === null || !c.text.startsWith(',')) return null;
  c.text = c.text.slice(1);
  const end = takeChange(c);
  if (end === null || c.text !== '') return null;
  return { stdOffsetSec, dst: { offsetSec, start: start.day, startTimeSec: start.timeSec, end: end.day, endTimeSec: end.timeSec } };
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days from 1 January of `year` to the change day (0-based). */
function dayOfYear(day: ChangeDay, year: number): number {
  switch (day.kind) {
    case 'julian0':
      return day.day;
    case 'julian1':
      return day.day - 1 + (isLeapYear(year) && day.day >= 60 ? 1 : 0);
    case 'month': {
      const firstMs = Date.UTC(year, day.month - 1, 1);
      const firstWeekday = new Date(firstMs).getUTCDay();
      const daysInMonth = new Date(Date.UTC(year, day.month, 0)).getUTCDate();
      let dayOfMonth = 1 + ((day.weekday - firstWeekday + 7) % 7) + (day.week - 1) * 7;
      while (dayOfMonth > daysInMonth) dayOfMonth -= 7;
      return Math.round((Date.UTC(year, day.month - 1, dayOfMonth) - Date.UTC(year, 0, 1)) / (secondsPerDay * 1000));
    }
    default: {
      const never: never = day;
      return never;
    }
  }
}

/** The instant (seconds since the epoch) of a change given in local time of offset `offsetSec`. */
function changeAtSec(day: ChangeDay, timeSec: number, offsetSec: number, year: number): number {
  return Date.UTC(year, 0, 1) / 1000 + dayOfYear(day, year) * secondsPerDay + timeSec - offsetSec;
}

interface Change { readonly atSec: number; readonly toDst: boolean }

/** The changes of the last year asked about, per rule: a zone renders mostly instants of one year. */
const changesKept = new WeakMap<PosixRule, { readonly year: number; readonly changes: readonly Change[] }>();

function changesAround(rule: PosixRule, dst: NonNullable<PosixRule['dst']>, year: number): readonly Change[] {
  const kept = changesKept.get(rule);
  if (kept?.year === year) return kept.changes;
  const changes: Change[] = [];
  for (let y = year - 1; y <= year + 1; y++) {
    changes.push({ atSec: changeAtSec(dst.start, dst.startTimeSec, rule.stdOffsetSec, y), toDst: true });
    changes.push({ atSec: changeAtSec(dst.end, dst.endTimeSec, dst.offsetSec, y), toDst: false });
  }
  // Stable: at one instant, the later year's change stays after the earlier year's.
  changes.sort((a, b) => a.atSec - b.atSec);
  changesKept.set(rule, { year, changes });
  return changes;
}

/** The zone's offset from UTC in seconds at `epochSec` under this rule. */
export function posixOffsetSecAt(rule: PosixRule, epochSec: number): number {
  const dst = rule.dst;
  if (dst === null) return rule.stdOffsetSec;
  const year = new Date((epochSec + rule.stdOffsetSec) * 1000).getUTCFullYear();
  // The last change at or before the instant, among the changes of the years around it: a change time may reach
  // into the next or the previous year (RFC 8536 allows -167 to 167 hours). Changes in time order, and at one
  // instant the later year's after the earlier's: `J1/0,J365/25` (daylight time all year) ends each year at the
  // instant the next one starts.
  const changes = changesAround(rule, dst, year);
  let inDst = false;
  for (const change of changes) {
    if (change.atSec > epochSec) break;
    inDst = change.toDst;
  }
  return inDst ? dst.offsetSec : rule.stdOffsetSec;
}

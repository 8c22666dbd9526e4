// Renders instants in the service time zone as the seed shows them: `YYYY-MM-DD HH:MM:SS` and `YYYY-MM-DD`, with
// the runtime's own time zones (Intl.DateTimeFormat, ICU's copy of the IANA database; decision 410). One formatter
// per zone, kept as src/dashboard/format.ts keeps one money format per currency.
import { limits } from '../../limits/index.ts';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws a RangeError for a zone ICU does not know (isValidTimeZone asks this way). */
function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    if (formatters.size >= limits.timeZonesKeptMax) formatters.clear();
    formatters.set(timeZone, format);
  }
  return format;
}

interface WallClock {
  readonly year: string;
  readonly month: string;
  readonly day: string;
  readonly hour: string;
  readonly minute: string;
  readonly second: string;
}

/** The wall clock of the zone at an instant, to the second (ICU drops the milliseconds). */
function parts(at: Date, timeZone: string): WallClock {
  const p: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(at)) p[part.type] = part.value;
  // ICU writes a year below 1000 with fewer digits; the seed's format has four.
  return {
    year: (p.year ?? '').padStart(4, '0'),
    month: p.month!,
    day: p.day!,
    hour: p.hour!,
    minute: p.minute!,
    second: p.second!,
  };
}

export function formatTimestamp(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** Day first, as the reference's nullification callback writes `fecha` (`24-08-2023 12:29:35`, reference §3.3). */
export function formatDayFirstTimestamp(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${p.day}-${p.month}-${p.year} ${p.hour}:${p.minute}:${p.second}`;
}

export function formatDate(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Date.UTC, except that years 0-99 are those years, not 1900-1999. */
function utcMs(
  year: number,
  monthIndex: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number {
  const at = new Date(Date.UTC(2000, monthIndex, day, hour, minute, second));
  at.setUTCFullYear(year, monthIndex, day);
  return at.getTime();
}

/** Offset of the zone from UTC at an instant, in ms (positive east of Greenwich), to the second. */
function zoneOffsetMs(atMs: number, timeZone: string): number {
  const p = parts(new Date(atMs), timeZone);
  const wallMs = utcMs(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return wallMs - Math.floor(atMs / 1000) * 1000;
}

const localPattern = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * Parses a local `YYYY-MM-DD[ HH:MM[:SS]]` in the service zone into an instant; null when malformed, not a real date,
 * or outside the years limits.localYearMin to limits.localYearMax (decision 680).
 * A wall clock the zone skips (a DST gap) resolves forward, as wall clocks do; one it repeats may name either instant.
 */
export function parseLocal(text: string, timeZone: string): Date | null {
  const m = localPattern.exec(text.trim());
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [
    m[1],
    m[2],
    m[3],
    m[4] ?? '0',
    m[5] ?? '0',
    m[6] ?? '0',
  ].map(Number) as [number, number, number, number, number, number];
  if (year < limits.localYearMin || year > limits.localYearMax) return null;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
    return null;
  const naiveUtc = utcMs(year, month - 1, day, hour, minute, second);
  const check = new Date(naiveUtc);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  const firstGuessMs = naiveUtc - zoneOffsetMs(naiveUtc, timeZone);
  const guessMs = naiveUtc - zoneOffsetMs(firstGuessMs, timeZone);
  if (guessMs !== firstGuessMs && zoneOffsetMs(guessMs, timeZone) !== naiveUtc - guessMs) {
    // A wall clock the zone skips: the offset from before the change carries it past the change (00:30 on the
    // night Santiago jumps from 00:00 to 01:00 is 01:30).
    return new Date(Math.max(firstGuessMs, guessMs));
  }
  return new Date(guessMs);
}

/** The zone's offset from UTC at an instant as people write it beside a time: `-03`, `+05:30`, `+00`. */
export function formatZoneOffset(at: Date, timeZone: string): string {
  const offsetMin = Math.round(zoneOffsetMs(at.getTime(), timeZone) / 60_000);
  const magnitude = Math.abs(offsetMin);
  const minutes = magnitude % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${offsetMin < 0 ? '-' : '+'}${two(Math.floor(magnitude / 60))}${minutes === 0 ? '' : `:${two(minutes)}`}`;
}

/** ISO-8601 with its zone, as JavaScript's toISOString and most clients write an instant. */
const zonedPattern =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * An instant written with its zone (`2026-12-20T23:00:00.000Z`, `...-03:00`) as the service zone's wall clock,
 * `YYYY-MM-DD HH:MM:SS`; null for any other text. A date the calendar lacks (Feb 30, which Date.parse rolls on
 * into March) is null too.
 */
export function zonedToLocalText(text: string, timeZone: string): string | null {
  const trimmed = text.trim();
  if (!zonedPattern.test(trimmed) || parseLocal(trimmed.slice(0, 10), 'UTC') === null) return null;
  const atMs = Date.parse(trimmed);
  return Number.isNaN(atMs) ? null : formatTimestamp(new Date(atMs), timeZone);
}
